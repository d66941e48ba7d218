//go:build cogen_coroswitch && !go1.27

package stackful

import (
	_ "unsafe" // go:linkname
)

// The raw switch (build tag cogen_coroswitch): a coroutine with a goroutine
// of its own is a runtime coro, created with runtime.newcoro and entered
// and left with runtime.coroswitch, reached through go:linkname the way
// package iter reaches them. That skips iter.Pull's closures and their
// state: Resume calls the switch directly, a started coroutine costs one
// coro (no closures), and the only extra work is the race detector's
// annotations in race builds. Share-stack carriers keep iter.Pull.
//
// It depends on runtime internals that Go does not promise to keep:
// runtime.newcoro(func(*coro)) *coro and runtime.coroswitch(*coro), with
// the semantics of Go 1.23 through 1.26 (src/runtime/coro.go). The linker
// refuses such references unless the program is linked with
// -ldflags=-checklinkname=0. On a Go release after 1.26 the tag does not
// build (switch_coro_unsupported.go) until this file is checked against
// that release's runtime; if a function is renamed or removed, the link
// fails with "relocation target runtime.coroswitch not defined".

// RawSwitch reports whether this build switches with runtime.coroswitch
// directly: true, the build tag cogen_coroswitch is set.
const RawSwitch = true

// coro is the runtime's coro, opaque here (as in package iter).
type coro struct{}

//go:linkname newcoro runtime.newcoro
func newcoro(func(*coro)) *coro

//go:linkname coroswitch runtime.coroswitch
func coroswitch(*coro)

// coSwitch is the coroutine's coro once it has started on a goroutine of
// its own; nil before, after its end, and for share-stack coroutines,
// which switch through their carrier's iter.Pull.
type coSwitch struct {
	c *coro
}

// enter switches to the coroutine of a started coro (raw is true); leave
// switches from it back to its resumer. Both are one call of coroswitch,
// small enough to be inlined into Resume and Yield (outside race builds),
// so that no call level of ours stands between them and the switch.
func (s *coSwitch) enter() {
	c := s.c // read before the release: the other side may write s after it
	raceRelease(s)
	coroswitch(c)
	raceAcquire(s)
}

func (s *coSwitch) leave() {
	c := s.c
	raceRelease(s)
	coroswitch(c)
	raceAcquire(s)
}

// startOwn starts co on a coro of its own and switches to it; Resume has
// pushed it. When run returns (or the goroutine exits by runtime.Goexit),
// the runtime's coroexit switches back to the resumer and ends the
// goroutine.
func (co *Co) startOwn() {
	s := &co.sw
	c := newcoro(func(*coro) {
		raceAcquire(s)
		defer raceRelease(s) // also when the goroutine exits by Goexit
		co.run()
	})
	s.c = c
	raceRelease(s)
	coroswitch(c)
	raceAcquire(s)
}

// errGoexit is the panic value finish records for a coroutine that called
// runtime.Goexit; raise calls Goexit in the resumer, as iter.Pull does.
var errGoexit = new(struct{ goexit int })

// raw reports whether co switches through a coro of its own.
func (s *coSwitch) raw() bool { return s.c != nil }
