//go:build linux

package stackful

import (
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"
)

// deepCall recurses n times with frames of about 160 bytes.
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

// stackMoves reports whether a call of the given depth, made first thing in
// a coroutine with attr, had the runtime move (grow) the coroutine's stack.
// A stack move copies the stack, so a local's address changes; unsafe is
// used only to read that address as a number, never to dereference it.
func stackMoves(t *testing.T, e *Env, attr *Attr, depth int) bool {
	var moved bool
	co := e.Create(func(*Co) {
		var anchor int
		before := uintptr(unsafe.Pointer(&anchor))
		deepCall(depth)
		moved = uintptr(unsafe.Pointer(&anchor)) != before
	}, attr)
	co.Resume()
	co.Release()
	return moved
}

func TestPrivateStackReserved(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a GC could shrink the stack
	e := newEnv(t)
	// 500 frames of ~160 B: ~80 KiB.
	if !stackMoves(t, e, nil, 500) {
		t.Fatal("default stack did not grow for an 80 KiB call")
	}
	if stackMoves(t, e, &Attr{StackSize: 128 << 10}, 500) {
		t.Fatal("a 128 KiB private stack grew for an 80 KiB call")
	}
	if !stackMoves(t, e, &Attr{StackSize: 32 << 10}, 500) {
		t.Fatal("a 32 KiB private stack did not grow for an 80 KiB call")
	}
	if stackMoves(t, e, &Attr{StackSize: 32 << 10}, 150) {
		t.Fatal("a 32 KiB private stack grew for a 24 KiB call")
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
