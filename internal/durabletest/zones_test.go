package durabletest

import (
	"bytes"
	"strings"
	"testing"
	_ "time/tzdata" // the zones of the tests, whatever the machine has

	"github.com/cogen-go/cogen/runtime/stackless"
)

// TestMeetingEverySuspension: a time.Time in America/New_York keeps its
// zone across a restore, so adding a month across the end of
// daylight-saving time lands at noon EST, as without a restore (issue 35:
// restored with only its offset, it landed at 11:00); a fixed zone keeps
// its name and offset, UTC stays UTC.
func TestMeetingEverySuspension(t *testing.T) {
	want, points, _ := everySuspension(t, func() stackless.Frame { return NewMeetingFrame("America/New_York") })
	if last := want[len(want)-1]; last != "meeting 2026-11-20T12:00:00-05:00 America/New_York" {
		t.Fatalf("uninterrupted run: %q", last)
	}
	if !strings.Contains(want[1], "2026-11-20 12:00:00 -0500 EST 2026-11-20 12:00:00 +0300 XYZ 2026-10-20 12:00:00.000000005 +0000 UTC true") {
		t.Fatalf("uninterrupted run: %q", want[1])
	}
	if points != 2 {
		t.Fatalf("%d snapshots", points)
	}
}

// TestMeetingUnknownZone: a snapshot holding a zone that the restoring
// program cannot load is refused by Restore, naming the zone.
func TestMeetingUnknownZone(t *testing.T) {
	data, _, ok := snapshotAt(t, 1, NewMeetingFrame("America/New_York"))
	if !ok {
		t.Fatal("no snapshot")
	}
	body := bytes.ReplaceAll(data[:len(data)-4], []byte("America/New_York"), []byte("America/New_Yorq"))
	_, err := stackless.Restore(newLoop(t), appendCRC(body))
	if err == nil || !strings.Contains(err.Error(), `a time.Time in zone "America/New_Yorq", which this program cannot load`) {
		t.Fatalf("Restore: %v", err)
	}
}
