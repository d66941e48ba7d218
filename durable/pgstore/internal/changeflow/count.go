//go:build !pgstore_changed

package changeflow

import (
	"strconv"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Count adds 0 to n-1, sleeping period after each, and records the sum.
// The build with the tag pgstore_changed adds twice as much (count_changed.go).
//
//co:stackless durable
func Count(co *stackful.Co, id durable.ID, n int, period time.Duration) {
	sum := 0
	for i := range n {
		sum += i
		co.Sleep(period)
	}
	durable.SetResult(id, []byte(strconv.Itoa(sum)))
}
