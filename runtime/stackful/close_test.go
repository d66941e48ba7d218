//go:build linux

package stackful

import (
	"runtime"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// waitGoroutines waits up to 2 s for the goroutine count to drop to want.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	n := 0
	for range 200 {
		if n = runtime.NumGoroutine(); n <= want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines, want %d", n, want)
}

func TestCloseUnwindsSuspended(t *testing.T) {
	base := runtime.NumGoroutine()
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	const N = 10000
	share := AllocShareStack(8, 0)
	r1, _ := pipe(t)
	r2, _ := pipe(t)
	var c Cond
	unwound := 0
	var cos []*Co
	for i := range N {
		var attr *Attr
		switch i % 4 {
		case 1:
			attr = &Attr{ShareStack: share}
		case 2:
			attr = &Attr{StackSize: 8 << 10}
		}
		co := e.Create(func(co *Co) {
			defer func() { unwound++ }()
			switch {
			case i == 0:
				co.Read(r1, make([]byte, 1))
			case i == 1:
				co.Poll([]loop.PollFd{{Fd: r2, Events: loop.EventIn}}, -1)
			case i%3 == 0:
				co.Yield()
			case i%3 == 1:
				co.Sleep(time.Hour)
			default:
				co.Wait(&c, -1)
			}
			t.Error("a coroutine went on after Close")
		}, attr)
		co.Resume()
		cos = append(cos, co)
	}
	// A few coroutines of the group have finished, so it has idle carriers.
	for range 3 {
		e.Create(func(*Co) {}, &Attr{ShareStack: share}).Resume()
	}
	if e.Live() != N {
		t.Fatalf("live %d", e.Live())
	}
	if n := runtime.NumGoroutine(); n < base+N {
		t.Fatalf("%d goroutines for %d suspended coroutines", n-base, N)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if unwound != N {
		t.Fatalf("deferred calls ran in %d of %d coroutines", unwound, N)
	}
	for _, co := range cos {
		if co.Status() != Dead {
			t.Fatalf("status %v after Close", co.Status())
		}
	}
	if e.Live() != 0 || !e.Loop().Closed() || share.Stats().Idle != 0 {
		t.Fatalf("live %d, loop closed %v, idle carriers %d", e.Live(), e.Loop().Closed(), share.Stats().Idle)
	}
	waitGoroutines(t, base)
	if err := e.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
}

func TestCloseUnwindingCoroutineMayWaitAndResume(t *testing.T) {
	e := newEnv(t)
	var log []string
	b := start(e, func(co *Co) {
		co.Yield()
		log = append(log, "b resumed by a's defer")
		co.Yield()
		log = append(log, "b went on")
	})
	start(e, func(co *Co) {
		defer func() {
			// Waiting while unwound: unwinds again at once.
			defer func() {
				log = append(log, "a's wait in a defer unwound")
				b.Resume()
			}()
			co.Sleep(time.Hour)
			log = append(log, "a slept")
		}()
		co.Yield()
	})
	stubborn := start(e, func(co *Co) {
		for i := 0; ; i++ {
			func() {
				defer func() {
					if recover() != nil {
						log = append(log, "stubborn recovered")
					}
				}()
				if i == 0 {
					co.Yield()
				} else {
					co.Sleep(time.Hour)
				}
			}()
			if i == 1 {
				return
			}
		}
	})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, s := range log {
		got += s + "; "
	}
	// Close unwinds the most recently started coroutine first.
	want := "stubborn recovered; stubborn recovered; a's wait in a defer unwound; b resumed by a's defer; "
	if got != want {
		t.Fatalf("log\n got %s\nwant %s", got, want)
	}
	if b.Status() != Dead || stubborn.Status() != Dead {
		t.Fatal("not dead")
	}
}

func TestCloseRepanicsPanicOfUnwinding(t *testing.T) {
	e := newEnv(t)
	boom := &testPanic{7}
	start(e, func(co *Co) {
		defer func() { panic(boom) }()
		co.Yield()
	})
	other := 0
	start(e, func(co *Co) {
		defer func() { other++ }()
		co.Yield()
	})
	p := mustPanic(t, func() { e.Close() })
	if p != boom {
		t.Fatalf("panic %v", p)
	}
	if other != 1 || !e.Closed() || e.Live() != 0 {
		t.Fatalf("other %d closed %v live %d", other, e.Closed(), e.Live())
	}
}

func TestCloseKeepsSharedLoop(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	e := NewEnvOn(l)
	co := start(e, func(co *Co) { co.Sleep(time.Hour) })
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if l.Closed() || co.Status() != Dead || l.Stats().Armed != 0 {
		t.Fatalf("loop closed %v, status %v, armed %d", l.Closed(), co.Status(), l.Stats().Armed)
	}
}
