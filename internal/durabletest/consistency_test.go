package durabletest

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/cogen-go/cogen/runtime/stackless"
)

// header is the parsed head of a snapshot (runtime/stackless/durable.go
// documents the format): where the wait kind and the frames' states start.
type header struct {
	carry   byte
	carryAt int // offset of the wait kind byte
	frames  int
	states  int // offset of the innermost frame's state (its PC first)
}

func parseHeader(t testing.TB, data []byte) header {
	t.Helper()
	var h header
	i := 4 // magic
	_, n := binary.Uvarint(data[i:])
	i += n
	h.carryAt, h.carry = i, data[i]
	i++
	if h.carry == 3 {
		_, n = binary.Varint(data[i:])
		i += n
	}
	nf, n := binary.Uvarint(data[i:])
	i += n
	h.frames = int(nf) - 1
	for range h.frames {
		l, n := binary.Uvarint(data[i:])
		i += n + int(l) + 8
	}
	h.states = i
	return h
}

// withInnerPC returns data with its innermost frame's PC set to pc and
// the checksum fixed: bytes no Snapshot writes, that a corruption (or an
// attacker) could.
func withInnerPC(t testing.TB, data []byte, pc int64) []byte {
	h := parseHeader(t, data)
	_, n := binary.Varint(data[h.states:])
	out := slices.Clone(data[:h.states])
	out = binary.AppendVarint(out, pc)
	out = append(out, data[h.states+n:len(data)-4]...)
	return appendCRC(out)
}

// ledgerAsleep returns a snapshot of Ledger alone (no callee) in Sleep.

func ledgerAsleep(t testing.TB) []byte {
	for k := 1; k < 40; k++ {
		data, _, ok := snapshotAt(t, k, NewLedgerFrame(3))
		if !ok {
			break
		}
		if h := parseHeader(t, data); h.frames == 1 && h.carry == 3 {
			return data
		}
	}
	t.Fatal("Ledger never slept alone")
	return nil
}

// TestRestoreInconsistent: checksum-valid bytes whose state a Snapshot
// could not have written are refused, naming what does not hold: a frame
// standing where a call returns with no callee frame (it restored, then
// its first step dereferenced the nil callee), a wait kind other than the
// one made at the resume point (a Sleep point restored as a Yield waited
// for a Resume the program never makes).
func TestRestoreInconsistent(t *testing.T) {
	asleep := ledgerAsleep(t)
	if _, err := stackless.Restore(newLoop(t), asleep); err != nil {
		t.Fatal(err)
	}
	// Ledger's resume points: 0 (entry), 6 (after the call of transfer),
	// 8 (Sleep).
	afterCall := withInnerPC(t, asleep, 6)
	asYield := slices.Clone(asleep[:len(asleep)-4])
	asYield[parseHeader(t, asleep).carryAt] = 2
	// drop the deadline: a Yield has none
	h := parseHeader(t, asleep)
	_, dn := binary.Varint(asleep[h.carryAt+1:])
	asYield = append(asYield[:h.carryAt+1], asYield[h.carryAt+1+dn:]...)
	asYield = appendCRC(asYield)

	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"after a call, no callee", afterCall, "stands at resume point 6, which is not a wait"},
		{"a Sleep point as a Yield", asYield, "stands at resume point 8, which is not a wait of the snapshot's kind 2"},
	} {
		task, err := stackless.Restore(newLoop(t), tc.data)
		if err == nil {
			task.Cancel()
			t.Errorf("%s: restored", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
