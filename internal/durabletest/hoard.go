package durabletest

import "github.com/cogen-go/cogen/runtime/stackful"

// Row is large in memory, and at least 512 bytes in a snapshot.
type Row [512]int64

// Hoard holds values that take far more memory than the fewest bytes
// that can encode them (a Row takes 4 KiB and 512 bytes at least, an
// empty struct nothing and no byte, a map with one entry a group of
// slots): crafted snapshots of it check that Restore's memory stays
// within its budget whatever a length says, and a run of it with many
// small maps checks that Snapshot pads what Restore needs.
//
//co:stackless durable
func Hoard(co *stackful.Co, rows []Row, index map[int32]Row, refs []*Row, nests [][]int64, units []struct{}, small []map[int8]int8) int {
	n := len(rows) + len(index) + len(refs) + len(nests) + len(units) + len(small)
	logf("hoard before %d", n)
	co.Gosched()
	for _, m := range small {
		n += len(m)
	}
	logf("hoard after %d", n)
	return n
}
