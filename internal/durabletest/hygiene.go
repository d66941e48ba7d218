package durabletest

import (
	"strconv"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// Package-level names that are also the locals of the generated encoding
// methods: cogen renames its locals, so that these stay reachable there.
type (
	k string
	n int
	x struct {
		counts map[k]n
		// Fields of types named like the other locals of the encoding
		// methods (gen's TestDurableHygieneNames requires every one).
		c     c
		i     i
		ok    ok
		p     p
		q     q
		v     v
		fresh fresh
		s     s
	}
	c     int8
	i     uint16
	ok    bool
	p     float32
	q     string
	v     []c
	fresh map[q]i
	s     []p
)

// dec is a codec named like the decoder parameter of the generated
// methods, which cogen renames so that they still reach it: it carries the
// counts of Tally (type n, whose values are otherwise written inline) as
// decimal text.
var dec = stackless.Codec[n]{
	Marshal: func(x *n) ([]byte, error) { return strconv.AppendInt(nil, int64(*x), 10), nil },
	Unmarshal: func(b []byte, x *n) error {
		v, err := strconv.ParseInt(string(b), 10, 64)
		*x = n(v)
		return err
	},
}

// Tally counts words, yielding between them, in a frame whose types are
// named like the encoding methods' locals.
//
//co:stackless durable
func Tally(co *stackful.Co, words []string) string {
	t := &x{counts: map[k]n{}, fresh: fresh{}}
	var order []k
	for _, w := range words {
		if t.counts[k(w)] == 0 {
			order = append(order, k(w))
		}
		t.counts[k(w)]++
		t.c, t.i, t.ok, t.p, t.q = c(len(w)), t.i+1, !t.ok, t.p+0.5, t.q+q(w)
		t.v = append(t.v, t.c)
		t.fresh[q(w)] = t.i
		t.s = append(t.s, t.p)
		logf("tally %s=%d %d %d %t %g %s %v %d %v", w, t.counts[k(w)], t.c, t.i, t.ok, t.p, t.q, t.v, len(t.fresh), t.s)
		co.Gosched()
	}
	out := ""
	for _, w := range order {
		out += logfString("%s:%d ", w, t.counts[w])
	}
	logf("tally done %s", out)
	return out
}
