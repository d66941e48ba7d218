//go:build linux

package stackful_test

import (
	"fmt"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// Resume and Yield switch between the main coroutine and a coroutine, as
// libco's co_resume and co_yield_ct do.
func Example() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer env.Close()

	co := env.Create(func(co *stackful.Co) {
		fmt.Println("routine: run")
		co.Yield()
		fmt.Println("routine: back")
	}, nil)
	fmt.Println("main: run")
	co.Resume()
	fmt.Println("main: back,", co.Status())
	co.Resume()
	fmt.Println("main: back again,", co.Status())
	co.Release()
	// Output:
	// main: run
	// routine: run
	// main: back, suspended
	// routine: back
	// main: back again, dead
}

// A coroutine that waits yields to its resumer; the loop resumes it when the
// wait ends. Run is libco's co_eventloop, with stop as its pfn.
func ExampleEnv_Run() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer env.Close()

	for i, d := range []time.Duration{30, 10, 20} {
		env.Create(func(co *stackful.Co) {
			co.Sleep(d * time.Millisecond)
			fmt.Println("coroutine", i, "slept", d*time.Millisecond)
		}, nil).Resume()
	}
	fmt.Println("all three are sleeping:", env.Live())
	env.Run(func() bool { return env.Live() == 0 })
	// Output:
	// all three are sleeping: 3
	// coroutine 1 slept 10ms
	// coroutine 2 slept 20ms
	// coroutine 0 slept 30ms
}

// Signal does not switch to the waiter: it queues it on the loop, which
// resumes it after the signaller has suspended.
func ExampleCo_Wait() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer env.Close()

	var cond stackful.Cond
	var queue []int
	consumer := env.Create(func(co *stackful.Co) {
		for len(queue) == 0 {
			co.Wait(&cond, -1)
		}
		fmt.Println("consumed", queue[0])
	}, nil)
	consumer.Resume()
	env.Create(func(co *stackful.Co) {
		queue = append(queue, 42)
		cond.Signal()
		fmt.Println("signalled; consumer is", consumer.Status())
	}, nil).Resume()
	env.Run(func() bool { return consumer.Status() == stackful.Dead })
	// Output:
	// signalled; consumer is suspended
	// consumed 42
}

// Poll is poll(2) on the loop.
func ExampleCo_Poll() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer env.Close()

	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		panic(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])

	poller := env.Create(func(co *stackful.Co) {
		fds := []loop.PollFd{{Fd: p[0], Events: loop.EventIn}}
		n, err := co.Poll(fds, 10*time.Millisecond)
		fmt.Println("first poll:", n, err)
		n, err = co.Poll(fds, time.Second)
		fmt.Println("second poll:", n, err, fds[0].Revents == loop.EventIn)
	}, nil)
	poller.Resume()
	env.Create(func(co *stackful.Co) {
		co.Sleep(50 * time.Millisecond)
		co.Write(p[1], []byte("x"))
	}, nil).Resume()
	env.Run(func() bool { return env.Live() == 0 })
	// Output:
	// first poll: 0 <nil>
	// second poll: 1 <nil> true
}

var requestID = stackful.NewKey[int]()

// Each coroutine, the main one included, has its own value for a key.
func ExampleKey() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer env.Close()

	requestID.Set(env.Main(), 0)
	for id := 1; id <= 2; id++ {
		env.Create(func(co *stackful.Co) {
			requestID.Set(co, id*100)
			co.Gosched()
			fmt.Println("coroutine", id, "sees", requestID.Get(co))
		}, nil).Resume()
	}
	env.Run(func() bool { return env.Live() == 0 })
	fmt.Println("main sees", requestID.Get(env.Main()))
	// Output:
	// coroutine 1 sees 100
	// coroutine 2 sees 200
	// main sees 0
}

// Environment variables set in a coroutine are its own.
func ExampleCo_Setenv() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer env.Close()

	env.Create(func(co *stackful.Co) {
		co.Setenv("COGEN_EXAMPLE", "coroutine")
		fmt.Println("coroutine:", co.Getenv("COGEN_EXAMPLE"))
	}, nil).Resume()
	fmt.Printf("main: %q\n", env.Main().Getenv("COGEN_EXAMPLE"))
	// Output:
	// coroutine: coroutine
	// main: ""
}

// Coroutines of a share-stack group reuse carrier goroutines.
func ExampleAllocShareStack() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer env.Close()

	group := stackful.AllocShareStack(1, 128<<10)
	for range 100 {
		co := env.Create(func(co *stackful.Co) { co.Yield() }, &stackful.Attr{ShareStack: group})
		co.Resume()
		co.Resume()
		co.Release()
	}
	fmt.Printf("%+v\n", group.Stats())
	// Output:
	// {Carriers:1 Reused:99 Idle:1}
}

// Close unwinds suspended coroutines: their deferred calls run.
func ExampleEnv_Close() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	env.Create(func(co *stackful.Co) {
		defer fmt.Println("deferred call ran")
		co.Sleep(time.Hour)
	}, nil).Resume()
	fmt.Println("live:", env.Live())
	env.Close()
	fmt.Println("live:", env.Live())
	// Output:
	// live: 1
	// deferred call ran
	// live: 0
}

// A call that can only block in Go runs on a worker of the env's offload
// pool while the coroutine waits on the loop.
func ExampleCo_Offload() {
	env, _ := stackful.NewEnv()
	defer env.Close()
	var sum int
	co := env.Create(func(co *stackful.Co) {
		co.Offload(func() {
			time.Sleep(10 * time.Millisecond) // blocks a worker, not the env
			sum = 1 + 2
		})
	}, nil)
	co.Resume()
	env.Run(func() bool { return co.Status() == stackful.Dead })
	fmt.Println(sum)
	// Output: 3
}

// A coroutine blocked in Go's scheduler is reported: here the handler
// counts the stall and releases the channel the coroutine waits on.
func ExampleEnv_OnStall() {
	env, _ := stackful.NewEnv()
	defer env.Close()
	env.SetStallTimeout(50 * time.Millisecond)
	ch := make(chan int)
	env.OnStall(func(s stackful.Stall) {
		fmt.Println("stall:", s.State, s.Blocked)
		ch <- 1
	})
	//co:blocking the stall this example reports
	co := env.Create(func(co *stackful.Co) { <-ch }, nil) // wrong: waits outside the loop
	co.Resume()
	fmt.Println(co.Status())
	// Output:
	// stall: chan receive true
	// dead
}
