//go:build pgstore_changed

package changeflow

import (
	"strconv"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Count is count.go's with another body: it adds 2*i where the other adds
// i. A snapshot of the other Count resumed by this one would record a
// wrong sum; the fingerprints differ, so a worker built with this file
// parks such a snapshot instead.
//
//co:stackless durable
func Count(co *stackful.Co, id durable.ID, n int, period time.Duration) {
	sum := 0
	for i := range n {
		sum += 2 * i
		co.Sleep(period)
	}
	durable.SetResult(id, []byte(strconv.Itoa(sum)))
}
