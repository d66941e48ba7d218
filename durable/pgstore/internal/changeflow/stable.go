// Package changeflow holds the workflows of pgstore's test of changed
// code (TestChangedCode): [Count] has two bodies, chosen by the build tag
// pgstore_changed, so that a worker built with the tag runs a program
// whose Count has another fingerprint than the snapshots a worker built
// without it committed; [Stable] is the same in both builds.
package changeflow

import (
	"strconv"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

//go:generate go tool cogen
//go:generate go tool cogen -tags pgstore_changed

// Stable checkpoints n times (Gosched) and records "ok n".
//
//co:stackless durable
func Stable(co *stackful.Co, id durable.ID, n int) {
	for range n {
		co.Gosched()
	}
	durable.SetResult(id, []byte("ok "+strconv.Itoa(n)))
}
