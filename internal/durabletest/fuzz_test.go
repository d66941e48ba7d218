package durabletest

import (
	"slices"
	"testing"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// FuzzRestoreGenerated: the generated decoders, and the codecs they call,
// meet random, truncated and corrupted bytes (with the checksum fixed up,
// so that they reach the frames): Restore returns an error or a task,
// never panics. The seeds are snapshots of Search (codecs: big.Int,
// regexp.Regexp, error), Ledger, Tally and Bytes (byte-sized slices and
// arrays), and a version 1 snapshot of Bytes.
func FuzzRestoreGenerated(f *testing.F) {
	for _, seed := range []func() stackless.Frame{
		func() stackless.Frame { return NewSearchFrame(searchWords) },
		func() stackless.Frame { return NewLedgerFrame(3) },
		func() stackless.Frame { return NewTallyFrame([]string{"a", "b", "a"}) },
		func() stackless.Frame { return NewBytesFrame(3) },
	} {
		for _, k := range []int{2, 4} {
			if data, _, ok := snapshotAt(f, k, seed()); ok {
				f.Add(data)
			}
		}
	}
	f.Add(bytesV1) // refused: format version 1
	l, err := loop.New()
	if err != nil {
		f.Fatal(err)
	}
	defer l.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, fixCRC(data)} {
			if task, err := stackless.Restore(l, in); err == nil {
				task.Cancel()
			}
		}
	})
}

// fixCRC replaces the last 4 bytes of b with the checksum of the rest.
func fixCRC(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	return appendCRC(slices.Clone(b[:len(b)-4]))
}
