package durabletest

import (
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Package-level names that are also the locals of the generated encoding
// methods: cogen renames its locals, so that these stay reachable there.
type (
	k string
	n int
	x struct{ counts map[k]n }
)

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
