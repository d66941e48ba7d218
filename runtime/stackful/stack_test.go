//go:build linux

package stackful

import (
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"
)

// deepCall recurses n times with frames of about 160 bytes (the stack
// benchmarks' deep call).
//
//go:noinline
func deepCall(n int) int {
	var pad [128]byte
	pad[n&127] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return deepCall(n-1) + int(pad[(n>>1)&127])
}

// A moveProbe counts the times the runtime moved (grew) the stack under a
// call. anchor points to a local of the coroutine's outermost frame, whose
// address changes whenever the stack is copied; unsafe is used only to read
// that address as a number, never to dereference it.
//
// The address is compared at every call level, not only before and after
// the call: one move always changes it (the old and the new stack coexist
// while the runtime copies), but two moves can bring it back, when the final
// stack is allocated over the freed first one and ends at the same top. A
// before/after comparison missed the 32 KiB -> 64 KiB -> 128 KiB growth of
// TestPrivateStackReserved that way in most fresh processes.
type moveProbe struct {
	anchor *int
	last   uintptr
	moves  int
}

// probedCall recurses n times with frames of about 160 bytes, like deepCall,
// and counts the stack moves in p.
//
//go:noinline
func probedCall(n int, p *moveProbe) int {
	var pad [112]byte
	pad[n%len(pad)] = byte(n)
	if a := uintptr(unsafe.Pointer(p.anchor)); a != p.last {
		p.last = a
		p.moves++
	}
	if n == 0 {
		return int(pad[0])
	}
	return probedCall(n-1, p) + int(pad[(n>>1)%len(pad)])
}

// stackMoves returns how many times the runtime moved (grew) the stack of a
// coroutine with attr for a call of the given depth made first thing in it.
func stackMoves(t *testing.T, e *Env, attr *Attr, depth int) int {
	var moves int
	co := e.Create(func(*Co) {
		var anchor int
		p := moveProbe{anchor: &anchor, last: uintptr(unsafe.Pointer(&anchor))}
		probedCall(depth, &p)
		moves = p.moves
	}, attr)
	co.Resume()
	co.Release()
	return moves
}

func TestPrivateStackReserved(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a GC could shrink the stack
	e := newEnv(t)
	// Several rounds: each coroutine's stack is allocated where the
	// previous ones' were freed, in a different layout every round.
	for round := range 10 {
		// 500 frames of ~160 B: ~80 KiB, which needs a 128 KiB stack.
		if n := stackMoves(t, e, nil, 500); n < 5 {
			t.Fatalf("round %d: default stack moved %d times for an 80 KiB call, want 2 KiB -> 128 KiB (6)", round, n)
		}
		if n := stackMoves(t, e, &Attr{StackSize: 128 << 10}, 500); n != 0 {
			t.Fatalf("round %d: a 128 KiB private stack moved %d times for an 80 KiB call", round, n)
		}
		// Right after a 128 KiB coroutine ended: its stack is not inherited.
		if n := stackMoves(t, e, &Attr{StackSize: 32 << 10}, 500); n != 2 {
			t.Fatalf("round %d: a 32 KiB private stack moved %d times for an 80 KiB call, want 32 -> 64 -> 128 KiB (2)", round, n)
		}
		if n := stackMoves(t, e, &Attr{StackSize: 32 << 10}, 150); n != 0 {
			t.Fatalf("round %d: a 32 KiB private stack moved %d times for a 24 KiB call", round, n)
		}
	}
}

func TestReservation(t *testing.T) {
	for _, tc := range []struct{ size, want int }{
		{1, 1 << 10},
		{4 << 10, 1 << 10},
		{5 << 10, 4 << 10},
		{128 << 10, 94 << 10},
		{100 << 10, 94 << 10},
		{1 << 30, 6<<20 - 2<<10},
	} {
		if got := reservation(tc.size); got != tc.want {
			t.Errorf("reservation(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}

func TestShareStackReusesCarriers(t *testing.T) {
	base := runtime.NumGoroutine()
	e := newEnv(t)
	s := AllocShareStack(2, 128<<10)
	attr := &Attr{ShareStack: s}
	if s.Count() != 2 || s.StackSize() != 128<<10 {
		t.Fatal("Count/StackSize")
	}
	// One at a time: one carrier serves them all.
	for i := range 5 {
		co := e.Create(func(co *Co) { co.Yield() }, attr)
		co.Resume()
		co.Resume()
		co.Release()
		if st := s.Stats(); st.Carriers != 1 || st.Reused != uint64(i) || st.Idle != 1 {
			t.Fatalf("after %d: %+v", i+1, st)
		}
	}
	// Five suspended at once need five carriers; two are kept afterwards.
	var cos []*Co
	for range 5 {
		co := e.Create(func(co *Co) { co.Yield() }, attr)
		co.Resume()
		cos = append(cos, co)
	}
	if st := s.Stats(); st.Carriers != 5 || st.Idle != 0 {
		t.Fatalf("five live: %+v", st)
	}
	for _, co := range cos {
		co.Resume()
	}
	if st := s.Stats(); st.Idle != 2 {
		t.Fatalf("after all finished: %+v", st)
	}
	waitGoroutines(t, base+2+1) // two idle carriers and the stall watchdog
	// A panic does not cost the carrier.
	p := mustPanic(t, e.Create(func(*Co) { panic("x") }, attr).Resume)
	if p != "x" || s.Stats().Carriers != 5 || s.Stats().Idle != 2 {
		t.Fatalf("panic %v, %+v", p, s.Stats())
	}
	// Sharing a group between envs is refused until the first env closes.
	e2 := newEnv(t)
	if p := mustPanic(t, func() { e2.Create(func(*Co) {}, attr) }); panicText(p) != "stackful: ShareStack used by two envs" {
		t.Fatal(p)
	}
	e.Close()
	waitGoroutines(t, base+1) // e2's stall watchdog
	e2.Create(func(*Co) {}, attr).Resume()
}

func TestAllocShareStackChecks(t *testing.T) {
	if p := mustPanic(t, func() { AllocShareStack(0, 1) }); panicText(p) != "stackful: AllocShareStack with a count below 1" {
		t.Fatal(p)
	}
	if p := mustPanic(t, func() { AllocShareStack(1, -1) }); panicText(p) != "stackful: AllocShareStack with a negative size" {
		t.Fatal(p)
	}
}
