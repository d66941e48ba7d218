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
	x struct{ counts map[k]n }
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
	t := &x{counts: map[k]n{}}
	var order []k
	for _, w := range words {
		if t.counts[k(w)] == 0 {
			order = append(order, k(w))
		}
		t.counts[k(w)]++
		logf("tally %s=%d", w, t.counts[k(w)])
		co.Gosched()
	}
	out := ""
	for _, w := range order {
		out += logfString("%s:%d ", w, t.counts[w])
	}
	logf("tally done %s", out)
	return out
}
