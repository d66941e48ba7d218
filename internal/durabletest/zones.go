package durabletest

import (
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// Meeting is a time in a zone of the database, a fixed zone and UTC,
// carried across checkpoints and moved by calendar arithmetic across a
// daylight-saving change.
//
//co:stackless durable
func Meeting(co *stackful.Co, zone string) string {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return err.Error()
	}
	at := time.Date(2026, 10, 20, 12, 0, 0, 0, loc)
	fixed := time.Date(2026, 10, 20, 12, 0, 0, 0, time.FixedZone("XYZ", 3*3600))
	utc := time.Date(2026, 10, 20, 12, 0, 0, 5, time.UTC)
	times := map[string]time.Time{"at": at}
	logf("meeting %s %s %s", at, fixed, utc)
	co.Gosched()
	next := at.AddDate(0, 1, 0) // across the end of daylight-saving time
	fixed = fixed.AddDate(0, 1, 0)
	logf("meeting next %s %s %s %t", next, fixed, utc, utc == time.Date(2026, 10, 20, 12, 0, 0, 5, time.UTC))
	co.Gosched()
	out := times["at"].AddDate(0, 1, 0).Format(time.RFC3339) + " " + next.Location().String()
	logf("meeting %s", out)
	return out
}
