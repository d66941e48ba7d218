//go:build linux

package stackful_test

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// goroutineStacks returns every goroutine's stack as its list of function
// names, innermost first.
func goroutineStacks() [][]string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var stacks [][]string
	for _, g := range strings.Split(string(buf), "\n\n") {
		var fns []string
		for _, line := range strings.Split(g, "\n")[1:] {
			if line == "" || line[0] == '\t' {
				continue
			}
			fn := line
			if i := strings.LastIndexByte(fn, '('); i > 0 {
				fn = fn[:i] // the arguments
			}
			fns = append(fns, fn)
		}
		stacks = append(stacks, fns)
	}
	return stacks
}

// framesBetween finds the stack holding a frame whose name contains outer
// and returns the frames above it (called from it, directly or not) up to
// the coroutine switch (package iter's Pull, or in a cogen_coroswitch
// build coSwitch's enter or leave, inlined, and runtime.coroswitch),
// innermost first; ok is false if no stack holds
// outer.
func framesBetween(stacks [][]string, outer string) (between []string, ok bool) {
	return framesBetweenIn(stacks, "", outer)
}

// framesBetweenIn is framesBetween among the stacks that hold a frame
// whose name contains marker.
func framesBetweenIn(stacks [][]string, marker, outer string) (between []string, ok bool) {
	for _, fns := range stacks {
		if marker != "" && !slices.ContainsFunc(fns, func(fn string) bool { return strings.Contains(fn, marker) }) {
			continue
		}
		o := -1
		for i, fn := range fns {
			if strings.Contains(fn, outer) {
				o = i
				break
			}
		}
		if o < 0 {
			continue
		}
		for i := o - 1; i >= 0; i-- {
			if strings.HasPrefix(fns[i], "iter.") || strings.HasPrefix(fns[i], "runtime.") || strings.Contains(fns[i], "stackful.(*coSwitch).") {
				return fns[i+1 : o], true
			}
		}
		// A traceback leaves runtime frames out: in a cogen_coroswitch
		// build, the innermost frame shown is the one calling coroswitch.
		return fns[:o], true
	}
	return nil, false
}

// The wait of a channel operation and the loop's resume of a coroutine are
// flat: between a cosync receive and the coroutine switch there are only
// Co.Suspend and Co.wait, and between the loop's run of a waiter and the
// switch only the coroutine's wake-up runner. Each call level there costs
// a mispredicted return when control comes back through the switch (a
// coroutine waiting in Await, wait and suspend, resumed through Resume,
// paid five of them).
func TestWaitAndResumeAreFlat(t *testing.T) {
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	c := cosync.NewChan[int](0)
	var waiting, resumed [][]string
	receiver := env.Create(func(co *stackful.Co) {
		c.Recv(co)
	}, nil)
	env.Create(func(co *stackful.Co) {
		co.Gosched() // from here on, the loop resumes it
		waiting = goroutineStacks()
		c.Send(co, 1)
	}, nil).Resume()
	receiver.Resume()
	env.Create(func(co *stackful.Co) {
		co.Gosched()
		resumed = goroutineStacks()
	}, nil).Resume()
	if err := env.Run(func() bool { return receiver.Status() == stackful.Dead && resumed != nil }); err != nil {
		t.Fatal(err)
	}
	between, ok := framesBetween(waiting, "cosync.(*Chan[...]).recv")
	want := []string{"github.com/cogen-go/cogen/runtime/stackful.(*Co).wait", "github.com/cogen-go/cogen/runtime/stackful.(*Co).Suspend"}
	if !ok || strings.Join(between, ",") != strings.Join(want, ",") {
		t.Errorf("a receiver waiting on a channel: %v between recv and the switch (found %v), want %v", between, ok, want)
	}
	between, ok = framesBetween(resumed, "loop.(*Loop).runBatch")
	want = []string{"github.com/cogen-go/cogen/runtime/stackful.(*wakeup).Run"}
	if !ok || strings.Join(between, ",") != strings.Join(want, ",") {
		t.Errorf("the loop resuming a coroutine: %v between runBatch and the switch (found %v), want %v", between, ok, want)
	}
}

// A coroutine resumed by the loop that panics leaves Env.Run with its
// panic; a coroutine the main coroutine resumes afterwards is not
// dispatched by the loop, so its wait after a hand-off returns to main
// instead of running the coroutine it woke nested in main's Resume.
func TestPanicEndsDispatching(t *testing.T) {
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	boom := env.Create(func(co *stackful.Co) {
		co.Gosched()
		panic("boom")
	}, nil)
	boom.Resume()
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Fatalf("Env.Run panicked with %v, want boom", p)
			}
		}()
		env.Run(func() bool { return boom.Status() == stackful.Dead })
	}()
	c, block := cosync.NewChan[int](0), cosync.NewChan[int](0)
	got := 0
	receiver := env.Create(func(co *stackful.Co) {
		got, _ = c.Recv(co)
	}, nil)
	receiver.Resume()
	sender := env.Create(func(co *stackful.Co) {
		c.Send(co, 7) // hands the value to the receiver: it runs next
		block.Recv(co)
	}, nil)
	sender.Resume()
	if got != 0 || receiver.Status() != stackful.Suspended {
		t.Fatalf("the receiver ran inside main's Resume of the sender (got %d, %v)", got, receiver.Status())
	}
	if err := env.Run(func() bool { return receiver.Status() == stackful.Dead }); err != nil {
		t.Fatal(err)
	}
	if got != 7 {
		t.Fatalf("received %d, want 7", got)
	}
}

// flatPinger sends n values on ping and receives each answer on pong.
func flatPinger(co *stackful.Co, ping, pong *cosync.Chan[int], n int) {
	co.Gosched() // from here on, the loop resumes it
	for i := range n {
		ping.Send(co, i)
		pong.Recv(co)
	}
	ping.Close()
}

// The direct hand-off's switch is flat too: a coroutine resumed by the
// loop that waits in Recv after handing a value over switches to the
// receiver from wait itself, so while the receiver runs nested in it, only
// Suspend and wait stand between its recv and the switch (there was
// handOff as well).
func TestHandOffIsFlat(t *testing.T) {
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ping, pong := cosync.NewChan[int](0), cosync.NewChan[int](0)
	var nested [][]string
	ponger := env.Create(func(co *stackful.Co) {
		for {
			v, ok := ping.Recv(co)
			if !ok {
				return
			}
			if nested == nil && env.Depth() == 3 {
				nested = goroutineStacks()
			}
			pong.Send(co, v)
		}
	}, nil)
	ponger.Resume()
	pinger := env.Create(func(co *stackful.Co) { flatPinger(co, ping, pong, 10) }, nil)
	pinger.Resume()
	if err := env.Run(func() bool { return ponger.Status() == stackful.Dead && pinger.Status() == stackful.Dead }); err != nil {
		t.Fatal(err)
	}
	if nested == nil {
		t.Fatal("the ponger never ran nested in the pinger (depth 3)")
	}
	between, ok := framesBetweenIn(nested, "stackful_test.flatPinger", "cosync.(*Chan[...]).recv")
	want := []string{"github.com/cogen-go/cogen/runtime/stackful.(*Co).wait", "github.com/cogen-go/cogen/runtime/stackful.(*Co).Suspend"}
	if !ok || strings.Join(between, ",") != strings.Join(want, ",") {
		t.Errorf("a coroutine switched to directly: its waker has %v between recv and the switch (found %v), want %v", between, ok, want)
	}
}
