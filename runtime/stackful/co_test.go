//go:build linux

package stackful

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func newEnv(t testing.TB) *Env {
	t.Helper()
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !e.Closed() && e.Current() == e.Main() {
			e.Close()
		}
	})
	return e
}

// mustPanic runs f and returns the value it panicked with.
func mustPanic(t *testing.T, f func()) (p any) {
	t.Helper()
	defer func() { p = recover() }()
	f()
	t.Fatal("did not panic")
	return nil
}

func panicText(p any) string {
	switch v := p.(type) {
	case string:
		return v
	case error:
		return v.Error()
	}
	return fmt.Sprint(p)
}

// TestResumeYieldOrder runs small programs for main and coroutines A, B, C
// and checks the interleaving and the call-stack depth at every step.
// Ops: "R:X" resumes X, "Y" yields, anything else is logged with the
// depth as name@depth.
func TestResumeYieldOrder(t *testing.T) {
	cases := []struct {
		name    string
		main    string
		progs   map[string]string
		want    string
		wantEnd map[string]Status
	}{
		{
			name:  "one level",
			main:  "R:A m1 R:A m2",
			progs: map[string]string{"A": "a1 Y a2"},
			want:  "a1@2 m1@1 a2@2 m2@1",
		},
		{
			name:  "siblings interleave",
			main:  "R:A R:B m1 R:A R:B m2",
			progs: map[string]string{"A": "a1 Y a2", "B": "b1 Y b2"},
			want:  "a1@2 b1@2 m1@1 a2@2 b2@2 m2@1",
		},
		{
			name:  "two levels",
			main:  "R:A m1 R:A m2",
			progs: map[string]string{"A": "a1 R:B a2 Y a3 R:B a4", "B": "b1 Y b2"},
			want:  "a1@2 b1@3 a2@2 m1@1 a3@2 b2@3 a4@2 m2@1",
		},
		{
			name: "three levels",
			main: "R:A m1 R:A m2 R:A m3",
			progs: map[string]string{
				"A": "R:B a1 Y R:B a2 Y a3",
				"B": "R:C b1 Y R:C b2",
				"C": "c1 Y c2",
			},
			want: "c1@4 b1@3 a1@2 m1@1 c2@4 b2@3 a2@2 m2@1 a3@2 m3@1",
		},
		{
			name: "three levels, yield returns to the latest resumer",
			main: "R:A m1 R:B m2 R:C m3",
			progs: map[string]string{
				"A": "R:C a1 Y",
				"B": "b1 R:A b2",
				"C": "c1 Y c2 Y c3",
			},
			// C is resumed by A, then by main; A by main, then by B.
			want: "c1@3 a1@2 m1@1 b1@2 b2@2 m2@1 c2@2 m3@1",
			wantEnd: map[string]Status{
				"A": Dead, "B": Dead, "C": Suspended,
			},
		},
		{
			name: "three levels all yield up and are resumed from main",
			main: "R:A m1 R:C m2 R:B m3 R:A m4",
			progs: map[string]string{
				"A": "R:B a1 Y a2",
				"B": "R:C b1 Y b2",
				"C": "c1 Y c2",
			},
			want: "c1@4 b1@3 a1@2 m1@1 c2@2 m2@1 b2@2 m3@1 a2@2 m4@1",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			var log []string
			cos := map[string]*Co{}
			exec := func(prog string) {
				for _, op := range strings.Fields(prog) {
					switch {
					case strings.HasPrefix(op, "R:"):
						cos[op[2:]].Resume()
					case op == "Y":
						e.Current().Yield()
					default:
						log = append(log, fmt.Sprintf("%s@%d", op, e.Depth()))
					}
				}
			}
			for name, prog := range tc.progs {
				cos[name] = e.Create(func(co *Co) {
					if e.Current() != co || co.Status() != Running {
						t.Errorf("%s: current %p status %v", name, e.Current(), co.Status())
					}
					exec(prog)
				}, nil)
			}
			exec(tc.main)
			if got := strings.Join(log, " "); got != tc.want {
				t.Errorf("order\n got %s\nwant %s", got, tc.want)
			}
			if e.Depth() != 1 || e.Current() != e.Main() {
				t.Errorf("after: depth %d, current main %v", e.Depth(), e.Current() == e.Main())
			}
			for name, co := range cos {
				want := Dead
				if s, ok := tc.wantEnd[name]; ok {
					want = s
				}
				if co.Status() != want {
					t.Errorf("%s: status %v, want %v", name, co.Status(), want)
				}
			}
		})
	}
}

func TestStatusAndRelease(t *testing.T) {
	e := newEnv(t)
	var seen []Status
	co := e.Create(func(c *Co) {
		seen = append(seen, c.Status())
		c.Yield()
	}, nil)
	seen = append(seen, co.Status())
	co.Resume()
	seen = append(seen, co.Status())
	co.Resume()
	seen = append(seen, co.Status())
	want := []Status{Created, Running, Suspended, Dead}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("statuses %v, want %v", seen, want)
	}
	if !e.Main().IsMain() || co.IsMain() || e.Main().Status() != Running {
		t.Fatal("main flags")
	}
	if co.Env() != e {
		t.Fatal("Env")
	}
	co.Release()
	if p := mustPanic(t, co.Resume); !strings.Contains(panicText(p), "released") {
		t.Fatalf("resume after release: %v", p)
	}
	// A coroutine that never started can be released.
	e.Create(func(*Co) {}, nil).Release()
	if e.Live() != 0 {
		t.Fatalf("live %d", e.Live())
	}
	if s := Status(9).String(); s != "Status(9)" {
		t.Fatal(s)
	}
}

func TestReset(t *testing.T) {
	e := newEnv(t)
	runs := 0
	key := NewKey[int]()
	co := e.Create(func(c *Co) {
		runs++
		if v := key.Get(c); v != 0 {
			t.Errorf("specific survived Reset: %d", v)
		}
		key.Set(c, runs)
		c.Yield()
	}, nil)
	co.Reset() // created: no-op
	co.Resume()
	if p := mustPanic(t, co.Reset); !strings.Contains(panicText(p), "Reset of a suspended coroutine") {
		t.Fatal(p)
	}
	co.Resume()
	co.Reset()
	if co.Status() != Created {
		t.Fatalf("status %v", co.Status())
	}
	co.Resume()
	co.Resume()
	if runs != 2 || co.Status() != Dead {
		t.Fatalf("runs %d status %v", runs, co.Status())
	}
}

func TestMisusePanics(t *testing.T) {
	cases := []struct {
		name string
		run  func(e *Env)
		want string
	}{
		{"resume dead", func(e *Env) {
			co := e.Create(func(*Co) {}, nil)
			co.Resume()
			co.Resume()
		}, "stackful: Resume of a dead coroutine"},
		{"resume self", func(e *Env) {
			e.Create(func(co *Co) { co.Resume() }, nil).Resume()
		}, "stackful: Resume of a running coroutine"},
		{"resume resumer", func(e *Env) {
			var a *Co
			a = e.Create(func(*Co) {
				e.Create(func(*Co) { a.Resume() }, nil).Resume()
			}, nil)
			a.Resume()
		}, "stackful: Resume of a running coroutine"},
		{"resume main", func(e *Env) { e.Main().Resume() }, "stackful: Resume of the main coroutine"},
		{"resume waiting", func(e *Env) {
			co := e.Create(func(co *Co) { co.Sleep(time.Hour) }, nil)
			co.Resume()
			co.Resume()
		}, "stackful: Resume of a coroutine that waits on the loop"},
		{"yield from main", func(e *Env) { e.Main().Yield() }, "stackful: Yield called by the main coroutine"},
		{"yield not current", func(e *Env) {
			var a *Co
			a = e.Create(func(*Co) {
				e.Create(func(*Co) { a.Yield() }, nil).Resume()
			}, nil)
			a.Resume()
		}, "stackful: Yield called on a coroutine that is not the current one"},
		{"yield suspended", func(e *Env) {
			co := e.Create(func(co *Co) { co.Yield() }, nil)
			co.Resume()
			co.Yield()
		}, "stackful: Yield called on a coroutine that is not the current one"},
		{"sleep not current", func(e *Env) {
			co := e.Create(func(co *Co) { co.Yield() }, nil)
			co.Resume()
			co.Sleep(time.Millisecond)
		}, "stackful: Sleep called on a coroutine that is not the current one"},
		{"release suspended", func(e *Env) {
			co := e.Create(func(co *Co) { co.Yield() }, nil)
			co.Resume()
			co.Release()
		}, "stackful: Release of a suspended coroutine"},
		{"release running", func(e *Env) {
			e.Create(func(co *Co) { co.Release() }, nil).Resume()
		}, "stackful: Release of a running coroutine"},
		{"release main", func(e *Env) { e.Main().Release() }, "stackful: Release of the main coroutine"},
		{"reset running", func(e *Env) {
			e.Create(func(co *Co) { co.Reset() }, nil).Resume()
		}, "stackful: Reset of a running coroutine"},
		{"reset suspended", func(e *Env) {
			co := e.Create(func(co *Co) { co.Yield() }, nil)
			co.Resume()
			co.Reset()
		}, "stackful: Reset of a suspended coroutine"},
		{"reset released", func(e *Env) {
			co := e.Create(func(*Co) {}, nil)
			co.Release()
			co.Reset()
		}, "stackful: Reset of a released coroutine"},
		{"reset main", func(e *Env) { e.Main().Reset() }, "stackful: Reset of the main coroutine"},
		{"wait not current", func(e *Env) {
			co := e.Create(func(co *Co) { co.Yield() }, nil)
			co.Resume()
			co.Wait(new(Cond), -1)
		}, "stackful: Wait called on a coroutine that is not the current one"},
		{"close from coroutine", func(e *Env) {
			e.Create(func(*Co) { e.Close() }, nil).Resume()
		}, "stackful: Close called by a coroutine other than the main coroutine"},
		{"create nil", func(e *Env) { e.Create(nil, nil) }, "stackful: Create with a nil function"},
		{"create after close", func(e *Env) {
			e.Close()
			e.Create(func(*Co) {}, nil)
		}, "stackful: Create on a closed env"},
		{"resume after close", func(e *Env) {
			co := e.Create(func(*Co) {}, nil)
			e.Close()
			co.Resume()
		}, "stackful: Resume on a closed env"},
		{"await unarmed", func(e *Env) {
			e.Create(func(co *Co) { co.Await() }, nil).Resume()
		}, "stackful: Await with a waiter that is not armed"},
		{"zero key", func(e *Env) { Key[int]{}.Get(e.Main()) }, "stackful: Key used without NewKey"},
		{"max depth below depth", func(e *Env) {
			e.Create(func(*Co) { e.SetMaxDepth(1) }, nil).Resume()
		}, "stackful: SetMaxDepth(1) below the current depth 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			p := mustPanic(t, func() { tc.run(e) })
			if got := panicText(p); !strings.HasPrefix(got, tc.want) {
				t.Fatalf("panic %q, want prefix %q", got, tc.want)
			}
			if e.Depth() != 1 || e.Current() != e.Main() {
				t.Fatalf("call stack not unwound: depth %d", e.Depth())
			}
		})
	}
}

type testPanic struct{ n int }

func TestPanicPropagation(t *testing.T) {
	for _, attr := range testAttrs() {
		t.Run(attr.name, func(t *testing.T) {
			e := newEnv(t)
			orig := &testPanic{42}
			var a, b, c *Co
			var deferred []string
			c = e.Create(func(*Co) {
				defer func() { deferred = append(deferred, "c") }()
				panic(orig)
			}, attr.attr)
			b = e.Create(func(*Co) {
				defer func() { deferred = append(deferred, "b") }()
				c.Resume()
				t.Error("b continued after c panicked")
			}, attr.attr)
			a = e.Create(func(*Co) {
				defer func() { deferred = append(deferred, "a") }()
				b.Resume()
				t.Error("a continued after b panicked")
			}, attr.attr)
			p := mustPanic(t, a.Resume)
			if p != orig {
				t.Fatalf("panic value %#v, want the original %p", p, orig)
			}
			if got := strings.Join(deferred, ""); got != "cba" {
				t.Fatalf("deferred calls ran as %q", got)
			}
			for _, co := range []*Co{a, b, c} {
				if co.Status() != Dead {
					t.Fatalf("status %v", co.Status())
				}
			}
			if e.Depth() != 1 || e.Live() != 0 {
				t.Fatalf("depth %d live %d", e.Depth(), e.Live())
			}
			// The panic was consumed: a recovered coroutine panics afresh.
			err := errors.New("second")
			d := e.Create(func(*Co) { panic(err) }, attr.attr)
			if p := mustPanic(t, d.Resume); p != err {
				t.Fatalf("second panic %v", p)
			}
		})
	}
}

func TestDepthLimit(t *testing.T) {
	for _, limit := range []int{DefaultMaxDepth, 10} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			e := newEnv(t)
			if limit != DefaultMaxDepth {
				e.SetMaxDepth(limit)
			}
			if e.MaxDepth() != limit {
				t.Fatalf("MaxDepth %d", e.MaxDepth())
			}
			deepest := 0
			var nest func(co *Co)
			nest = func(co *Co) {
				deepest = max(deepest, e.Depth())
				e.Create(nest, nil).Resume()
			}
			p := mustPanic(t, func() { e.Create(nest, nil).Resume() })
			want := fmt.Sprintf("stackful: Resume exceeds the call stack depth limit of %d", limit)
			if !strings.HasPrefix(panicText(p), want) {
				t.Fatalf("panic %q", panicText(p))
			}
			if deepest != limit {
				t.Fatalf("deepest %d, want %d", deepest, limit)
			}
			if e.Depth() != 1 || e.Live() != 0 {
				t.Fatalf("depth %d live %d", e.Depth(), e.Live())
			}
		})
	}
}

func TestGoexitPropagates(t *testing.T) {
	e := newEnv(t)
	done := make(chan bool)
	go func() {
		defer func() { done <- true }()
		co := e.Create(func(*Co) { runtime.Goexit() }, nil)
		co.Resume()
		t.Error("Resume returned after Goexit")
	}()
	<-done
	if e.Depth() != 1 || e.Live() != 0 {
		t.Fatalf("depth %d live %d", e.Depth(), e.Live())
	}
}

type namedAttr struct {
	name string
	attr *Attr
}

func testAttrs() []namedAttr {
	return []namedAttr{
		{"default", nil},
		{"private", &Attr{StackSize: 64 << 10}},
		{"shared", &Attr{ShareStack: AllocShareStack(2, 128<<10)}},
	}
}

func TestCoSize(t *testing.T) {
	// 160 is a size class; the 3 KB budget per suspended coroutine has
	// no room for the next one (176). The raw switch's coro pointer takes
	// the Co to 168 bytes (176 allocated) and saves iter.Pull's state
	// (about 190 bytes in five allocations).
	limit := uintptr(160)
	if RawSwitch {
		limit = 168
	}
	if n := unsafe.Sizeof(Co{}); n > limit {
		t.Fatalf("Co is %d bytes, want at most %d", n, limit)
	}
}

// TestYieldFromOtherGoroutine: Yield on the current coroutine, but called by
// another goroutine (here one the coroutine started and waits for), panics
// on amd64 and arm64, where the goroutine's identity costs a nanosecond to
// read, and leaves the coroutine running and intact.
func TestYieldFromOtherGoroutine(t *testing.T) {
	if !checkGoroutine {
		t.Skip("Yield's goroutine check is compiled out on this architecture")
	}
	e := newEnv(t)
	var got any
	yields := 0
	co := e.Create(func(co *Co) {
		done := make(chan any)
		go func() {
			defer func() { done <- recover() }()
			co.Yield()
		}()
		got = <-done //co:blocking for the goroutine's Yield to fail
		co.Yield()   // the coroutine's own Yield still works
		yields++
	}, nil)
	co.Resume()
	if want := "stackful: Yield called from a goroutine that is not the current coroutine's"; panicText(got) != want {
		t.Fatalf("panic %q, want %q", panicText(got), want)
	}
	if co.Status() != Suspended {
		t.Fatalf("status %v after the foreign Yield, want Suspended", co.Status())
	}
	co.Resume()
	if yields != 1 || co.Status() != Dead {
		t.Fatalf("yields %d, status %v", yields, co.Status())
	}
}

// TestSlotHomeSize: the home of a coroutine's operation slot, which a
// coroutine blocked on a cosync primitive allocates, fits 24 bytes; the
// rarely used state waits behind it.
func TestSlotHomeSize(t *testing.T) {
	if n := unsafe.Sizeof(coExtra{}); n > 24 {
		t.Fatalf("coExtra is %d bytes, want <= 24", n)
	}
}

// TestRunAfterEveryCoroutineFinished is the shape that hung the
// repository's stall probe and client/gate's dbload under load: every
// coroutine finished while it was created (under load a hooked call's
// answer is often there before the call would wait, so none waited), and
// Run, which used to ask its stop function only after an iteration,
// blocked in the idle loop's poller for good.
func TestRunAfterEveryCoroutineFinished(t *testing.T) {
	e := newEnv(t)
	done := 0
	for range 3 {
		e.Create(func(co *Co) { done++ }, nil).Resume()
	}
	// Stop is the test's way out if Run blocks.
	blocked := time.AfterFunc(10*time.Second, func() { e.Stop() })
	if err := e.Run(func() bool { return done == 3 }); err != nil {
		t.Fatal(err)
	}
	if !blocked.Stop() {
		t.Fatal("Run blocked in the poller although every coroutine had finished")
	}
}
