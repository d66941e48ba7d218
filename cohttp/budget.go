//go:build unix

package cohttp

import (
	"fmt"
	"math/bits"
	"runtime"
	"runtime/metrics"
)

// The body budget.
//
// A server reads a body whole before calling its handler, so what its
// connections buffer must be bounded together (Limits.BodyBudget). The
// budget follows the bytes received, not the lengths declared: a body's
// buffer starts at the connection's 4 KiB and doubles only when full, each
// new buffer's size beyond 4 KiB taken from the budget, so a client that
// declares a large body and sends nothing holds nothing, and one that
// sends part of it holds at most twice what it sent.
//
// Memory the server has let go of is not free until the collector has
// freed it: a buffer grown out of, or the large buffer of a body answered,
// stays charged to the budget (garbage) until two collections have ended
// since it was dropped (the first may have begun before, and keep it).
// So the budget bounds the buffers held and the garbage they left
// together. A connection that needs budget that garbage holds starts a
// collection (runtime.GC on a goroutine of its own, one at a time) and
// waits; the collection gives the garbage back through Loop.Submit.
//
// Growth by doubling alone could deadlock: many bodies each holding part
// of the budget, none able to grow to its end. So the budget keeps a
// reserve: the largest budget one of the bodies being grown needs whole
// (its declared length, or MaxBodyBytes for a chunked one; counted by
// powers of two, so rounded up, and at most MaxBodyBytes plus a head and
// the whole budget). A body's growth is taken if the reserve stays free,
// counting in it what the bodies that hold their whole buffer (which need
// no more) will give back. Two growths need no reserve, since afterwards
// the body needs nothing more: one that completes it (the doubling bounds
// it to twice what was received), and the finisher's: when a growth is
// refused, the connection becomes the finisher, if there is none and the
// budget has room for its whole body: it takes its whole body's size at
// once (the largest allowed for a chunked body), and so always completes;
// one finisher at a time, so that declared lengths cost the budget for
// one connection only. Whenever no body holds its whole buffer, the
// reserve is free (once the garbage is collected): some body can always
// be read to its end, and the others wait (not reading: TCP's flow
// control holds their clients) within their read timeout. A body that
// waits before its first growth holds nothing, so the reserve need not
// cover it. Everything here is O(1) per buffer growth (the reserve's
// count has one entry per power of two).

// take takes a buffer of size bytes for c's body from the budget (what is
// beyond initialBuffer), or, making c the finisher, one of the whole
// body's size full (0: unknown); c's old buffer becomes garbage. It
// returns the size taken and whether it could.
func (s *Server) take(c *conn, size, full int) (int, bool) {
	s.collect()
	want := int64(size - initialBuffer)
	need := s.bodyReserve // the budget c's whole body needs
	if full > 0 {
		need = min(need, int64(full-initialBuffer))
	}
	whole := full > 0 && size >= full
	switch {
	case whole && want <= s.bodyLeft:
	case !whole && want <= s.bodyLeft-max(0, max(s.reserve(c), need)-s.wholeHeld):
	case s.finisher == nil:
		if full == 0 {
			full = int(s.bodyReserve) + initialBuffer
		}
		size, want = max(size, full), int64(max(size, full)-initialBuffer)
		if want > s.bodyLeft {
			s.needCollection()
			return 0, false
		}
		s.finisher, whole = c, true
	default:
		s.needCollection()
		return 0, false
	}
	s.bodyLeft -= want
	s.bodyPeak = max(s.bodyPeak, s.lim.BodyBudget-s.bodyLeft)
	s.drop(c)
	c.reserved = int(want)
	if whole {
		c.whole = true
		s.wholeHeld += want
	} else {
		c.need = need
		s.needs[bits.Len64(uint64(need))]++
	}
	return size, true
}

// drop makes c's body buffer beyond the first 4 KiB garbage, and takes it
// out of the reserve's count.
func (s *Server) drop(c *conn) {
	if c.reserved == 0 {
		return
	}
	s.addGarbage(int64(c.reserved))
	if c.whole {
		s.wholeHeld -= int64(c.reserved)
		c.whole = false
	} else {
		s.needs[bits.Len64(uint64(c.need))]--
	}
	c.reserved, c.need = 0, 0
}

// reserve returns the budget the largest body being grown may need whole,
// other than c's: the largest power of two counted, at most bodyReserve.
func (s *Server) reserve(c *conn) int64 {
	self := -1
	if c.reserved > 0 && !c.whole {
		self = bits.Len64(uint64(c.need))
	}
	for i := len(s.needs) - 1; i > 0; i-- {
		if n := s.needs[i]; n > 1 || n == 1 && i != self {
			return min(s.bodyReserve, 1<<i)
		}
	}
	return 0
}

// dropped is garbage: n bytes of buffers dropped when at collections had
// ended. The collector has freed them once two more have ended (the first
// may have begun before they were dropped, and kept them).
type dropped struct {
	n  int64
	at uint64
}

// addGarbage charges n bytes of dropped buffers to the budget until the
// collector has freed them. Garbage is kept by the collection count at
// which it was dropped, so that a steady flow of it does not keep what was
// dropped earlier charged: only the last two counts can be pending (older
// garbage is freed), so two entries hold it all. O(1).
func (s *Server) addGarbage(n int64) {
	now := s.gcCycles()
	s.collectAt(now)
	g := &s.garbage
	switch {
	case g[1].n > 0 && g[1].at == now:
		g[1].n += n
	case g[1].n > 0: // g[0] holds older garbage still pending: merge it into g[1], later (conservative)
		g[0] = dropped{g[0].n + g[1].n, g[1].at}
		g[1] = dropped{n, now}
	case g[0].n > 0 && g[0].at == now:
		g[0].n += n
	case g[0].n > 0:
		g[1] = dropped{n, now}
	default:
		g[0] = dropped{n, now}
	}
}

// garbageHeld returns the budget that garbage holds.
func (s *Server) garbageHeld() int64 { return s.garbage[0].n + s.garbage[1].n }

// collect gives back to the budget the garbage the collector has freed.
func (s *Server) collect() {
	if s.garbageHeld() > 0 {
		s.collectAt(s.gcCycles())
	}
}

// collectAt gives back the garbage dropped two collections or more before
// now collections had ended.
func (s *Server) collectAt(now uint64) {
	g := &s.garbage
	for g[0].n > 0 && now >= g[0].at+2 {
		s.bodyLeft += g[0].n
		g[0], g[1] = g[1], dropped{}
	}
}

// collectAll runs a collection and gives all the garbage back: Shutdown
// calls it once every connection has ended, so that the budget is all
// back and no charge waits for collections that nothing may start. It
// waits for the collection (runtime.GC on a goroutine) by running the
// loop, as the model waits (never blocking a coroutine in Go's scheduler).
// runtime.GC returns after a whole collection that began after the call:
// every buffer dropped before it is freed.
func (s *Server) collectAll() error {
	if s.garbageHeld() == 0 {
		return nil
	}
	done := false
	go func() {
		runtime.GC()
		s.l.Submit(func() { done = true })
	}()
	if err := s.run(func() bool { return done }); err != nil {
		return fmt.Errorf("cohttp: waiting for a collection after the shutdown: %w", err)
	}
	s.bodyLeft += s.garbageHeld()
	s.garbage = [2]dropped{}
	return nil
}

// needCollection starts a collection, if garbage holds budget and none
// runs: a connection waits for budget. Its end gives the garbage back and
// wakes the waiting connections.
func (s *Server) needCollection() {
	if s.garbageHeld() == 0 || s.collecting {
		return
	}
	s.collecting = true
	go func() {
		runtime.GC() // waits for a collection under way, then runs a whole one
		s.l.Submit(func() {
			s.collecting = false
			s.collect()
			s.bodyFreed.Broadcast()
		})
	}()
}

// gcCycles returns the number of collections ended.
func (s *Server) gcCycles() uint64 {
	if s.gcSample == nil {
		s.gcSample = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	}
	metrics.Read(s.gcSample)
	return s.gcSample[0].Value.Uint64()
}
