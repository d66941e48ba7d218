package durabletest

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/taskpanic"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// FuzzRestoreGenerated: the generated decoders, and the codecs they call,
// meet random, truncated and corrupted bytes (with the checksum fixed up,
// so that they reach the frames): Restore returns an error or a task,
// never panics. The seeds are snapshots of Search (codecs: big.Int,
// regexp.Regexp, error), Ledger, Tally and Bytes (byte-sized slices and
// arrays), the aliasing shapes (PtrLocal, OutParam, SharedRefs, Deep:
// paths into frames, forward references, shared arrays and maps, cycles),
// Meeting (zones), and a version 1 snapshot of Bytes.
func FuzzRestoreGenerated(f *testing.F) {
	for _, seed := range []func() stackless.Frame{
		func() stackless.Frame { return NewSearchFrame(searchWords) },
		func() stackless.Frame { return NewLedgerFrame(3) },
		func() stackless.Frame { return NewTallyFrame([]string{"a", "b", "a"}) },
		func() stackless.Frame { return NewBytesFrame(3) },
		func() stackless.Frame { return NewPtrLocalFrame() },
		func() stackless.Frame { return NewOutParamFrame() },
		func() stackless.Frame { return NewSharedRefsFrame() },
		func() stackless.Frame { return NewDeepFrame(3) },
		func() stackless.Frame { return NewMeetingFrame("America/New_York") },
	} {
		for _, k := range []int{1, 2, 4} {
			if data, _, ok := snapshotAt(f, k, seed()); ok {
				f.Add(data)
			}
		}
	}
	f.Add(bytesV1) // refused: format version 1
	// A Ledger alone, standing just after its call with no callee frame:
	// refused (it restored, then dereferenced the nil callee).
	f.Add(withInnerPC(f, ledgerAsleep(f), 6))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, fixCRC(data)} {
			l, err := loop.New()
			if err != nil {
				t.Fatal(err)
			}
			if task, err := stackless.Restore(l, wakeNow(in)); err == nil {
				runRestored(t, l, task)
			}
			l.Close()
		}
	})
}

// wakeNow returns data with the deadline of a sleeping task, if it has
// one, moved to the epoch (and the checksum fixed if it was right), so
// that a restored sleeper wakes at once; other bytes are returned as
// they are.
func wakeNow(data []byte) []byte {
	if len(data) < 10 || string(data[:4]) != "CGDS" {
		return data
	}
	i := 4
	if _, n := binary.Uvarint(data[i:]); n > 0 {
		i += n
	} else {
		return data
	}
	if i >= len(data) || data[i] != 3 {
		return data
	}
	_, n := binary.Varint(data[i+1:])
	if n <= 0 || i+1+n > len(data)-4 {
		return data
	}
	out := append(slices.Clone(data[:i+1]), 0)
	out = append(out, data[i+1+n:len(data)-4]...)
	if !slices.Equal(fixCRC(data), data) {
		return append(out, 0, 0, 0, 0) // the checksum was wrong: keep it wrong
	}
	return appendCRC(out)
}

// runRestored runs a restored task to its end, resuming it whenever it
// yields, for at most 10,000 loop iterations and one second (a made-up
// state may loop for long), and fails t if it panicked outside the
// workflow's own code: a panic raised in generated code other than a
// Step method's body (a *_cogen.go line: a Result of a nil callee, a
// helper), in runtime/stackless, or with a "cogen:" or "stackless:" value
// (an unknown resume point, a misuse). A panic of the workflow's own code
// on values the fuzzer made up (an index out of range, a nil pointer the
// program never stores) is the program's, as it would be on such values
// in any run.
func runRestored(t *testing.T, l *loop.Loop, task *stackless.Task) {
	t.Helper()
	var outside string
	taskpanic.Hook = func(v any) {
		fn, file, line := taskpanic.Site()
		s, _ := v.(string)
		if strings.HasPrefix(s, "cogen:") || strings.HasPrefix(s, "stackless:") ||
			strings.HasSuffix(file, "_cogen.go") || strings.Contains(fn, "cogen/runtime/") {
			outside = fmt.Sprintf("%v, raised in %s (%s:%d)", v, fn, file, line)
		}
	}
	defer func() { taskpanic.Hook = nil }()
	var guard loop.Timer
	l.Reset(&guard, time.Second, func() { l.Close() })
	iters := 0
	_ = l.Run(func() bool {
		task.Resume()
		iters++
		return task.Done() || iters > 10000
	})
	l.CancelTimer(&guard)
	if outside != "" {
		t.Fatalf("a restored task panicked outside the workflow's code: %s", outside)
	}
}

// fixCRC replaces the last 4 bytes of b with the checksum of the rest.
func fixCRC(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	return appendCRC(slices.Clone(b[:len(b)-4]))
}
