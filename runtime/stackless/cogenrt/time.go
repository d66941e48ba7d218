package cogenrt

import (
	"fmt"
	"sync"
	"time"
)

// A time.Time is written with its location, not only its offset (which
// is all MarshalBinary keeps), so that arithmetic after a restore crosses
// daylight-saving changes as it would have:
//
//	zone     one byte: 0 UTC, 1 Local, 2 a zone of the time zone database
//	         (its name follows: uvarint length and bytes), 3 a fixed zone
//	         (its name, then its offset east of UTC in seconds, a varint)
//	seconds  varint, since 1970-01-01 UTC
//	nanos    uvarint, below 1e9
//
// A location whose name time.LoadLocation loads to the same zone at the
// time's instant (the name and the offset agree) is a database zone: the
// restoring program loads it by name, and fails the Restore if it cannot
// (a program without the zone database: embed it with import _
// "time/tzdata"). Any other location (time.FixedZone, or one made from
// custom data) is carried as a fixed zone with the name and offset it has
// at the time's instant. Local is the restoring program's local zone. The
// monotonic clock reading is dropped, as by MarshalBinary.

const (
	zoneUTC uint8 = iota
	zoneLocal
	zoneNamed
	zoneFixed
)

var zones struct {
	sync.Mutex
	m map[string]zoneEntry
}

type zoneEntry struct {
	loc *time.Location
	err error
}

// loadZone is time.LoadLocation, cached: a million restored tasks in one
// zone read the database once.
func loadZone(name string) (*time.Location, error) {
	zones.Lock()
	defer zones.Unlock()
	if z, ok := zones.m[name]; ok {
		return z.loc, z.err
	}
	loc, err := time.LoadLocation(name)
	if zones.m == nil {
		zones.m = map[string]zoneEntry{}
	}
	if len(zones.m) < 1024 { // names come from snapshots: bound the cache
		zones.m[name] = zoneEntry{loc, err}
	}
	return loc, err
}

// Time writes *t with its location (see the format above).
func (e *Encoder) Time(t *time.Time) {
	loc := t.Location()
	switch {
	case loc == time.UTC:
		e.buf = append(e.buf, zoneUTC)
	case loc == time.Local:
		e.buf = append(e.buf, zoneLocal)
	default:
		name := loc.String()
		zname, off := t.Zone()
		if db, err := loadZone(name); err == nil {
			if n2, o2 := t.In(db).Zone(); n2 == zname && o2 == off {
				e.buf = append(e.buf, zoneNamed)
				e.String(name)
				break
			}
		}
		e.buf = append(e.buf, zoneFixed)
		e.String(zname)
		e.Int(int64(off))
	}
	e.Int(t.Unix())
	e.Uint(uint64(t.Nanosecond()))
}

// Time reads what [Encoder.Time] wrote into *t. A zone of the database
// that this program cannot load is an error.
func (d *Decoder) Time(t *time.Time) {
	if d.err != nil {
		return
	}
	if len(d.buf) == 0 {
		d.Fail(errTruncated)
		return
	}
	kind := d.buf[0]
	d.buf = d.buf[1:]
	var loc *time.Location
	switch kind {
	case zoneUTC:
		loc = time.UTC
	case zoneLocal:
		loc = time.Local
	case zoneNamed:
		name := d.String()
		if d.err != nil {
			return
		}
		l, err := loadZone(name)
		if err != nil {
			d.Fail(fmt.Errorf("a time.Time in zone %q, which this program cannot load (import _ \"time/tzdata\" embeds the zone database): %w", name, err))
			return
		}
		loc = l
	case zoneFixed:
		name := d.String()
		off := d.IntN(32)
		if d.err != nil {
			return
		}
		if off <= -24*3600 || off >= 24*3600 {
			d.Fail(fmt.Errorf("a fixed zone %d seconds from UTC", off))
			return
		}
		loc = time.FixedZone(name, int(off))
	default:
		d.Fail(fmt.Errorf("bad zone kind %d", kind))
		return
	}
	sec, nsec := d.Int(), d.Uint()
	if d.err == nil && nsec >= 1e9 {
		d.Fail(fmt.Errorf("%d nanoseconds", nsec))
	}
	if d.err != nil {
		return
	}
	*t = time.Unix(sec, int64(nsec)).In(loc)
}
