package cosync_test

import (
	"context"
	"fmt"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// runEnv runs fn in a stackful coroutine of a new env until it returns.
func runEnv(fn func(e *stackful.Env, co *stackful.Co)) {
	e, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer e.Close()
	co := e.Create(func(co *stackful.Co) { fn(e, co) }, nil)
	co.Resume()
	e.Run(func() bool { return co.Status() == stackful.Dead })
}

// A producer and a consumer coroutine over an unbuffered channel; the same
// source, marked //co:stackless, runs as generated stackless frames.
func ExampleChan() {
	runEnv(func(e *stackful.Env, co *stackful.Co) {
		c := cosync.NewChan[string](0)
		e.Create(func(co *stackful.Co) {
			for _, w := range []string{"one", "two", "three"} {
				c.Send(co, w)
			}
			c.Close()
		}, nil).Resume()
		for {
			w, ok := c.Recv(co)
			if !ok {
				break
			}
			fmt.Println(w)
		}
	})
	// Output:
	// one
	// two
	// three
}

// Select waits for the first of a receive and a timeout.
func ExampleSelect() {
	runEnv(func(e *stackful.Env, co *stackful.Co) {
		c := cosync.NewChan[int](0)
		e.Loop().AfterFunc(time.Millisecond, func() { c.TrySend(42) })
		for range 2 {
			var v int
			switch cosync.Select(co, c.RecvCase(&v, nil), cosync.After(50*time.Millisecond)) {
			case 0:
				fmt.Println("received", v)
			case 1:
				fmt.Println("timed out")
			}
		}
	})
	// Output:
	// received 42
	// timed out
}

// A Mutex held across suspensions, and a WaitGroup waiting for the
// workers.
func ExampleMutex() {
	runEnv(func(e *stackful.Env, co *stackful.Co) {
		var mu cosync.Mutex
		var wg cosync.WaitGroup
		total := 0
		for i := 1; i <= 3; i++ {
			wg.Add(1)
			e.Create(func(co *stackful.Co) {
				mu.Lock(co)
				v := total
				co.Sleep(time.Millisecond) // others wait for the lock meanwhile
				total = v + i
				mu.Unlock()
				wg.Done()
			}, nil).Resume()
		}
		wg.Wait(co)
		fmt.Println(total)
	})
	// Output: 6
}

// A goroutine outside the loop feeds a coroutine through the bridge.
func ExampleChan_GoSend() {
	l, err := loop.New()
	if err != nil {
		panic(err)
	}
	defer l.Close()
	e := stackful.NewEnvOn(l)
	defer e.Close()
	c := cosync.NewChanOn[int](l, 0)
	go func() {
		for i := range 3 {
			c.GoSend(context.Background(), i*i)
		}
		c.GoClose()
	}()
	sum := 0
	co := e.Create(func(co *stackful.Co) {
		for v, ok := c.Recv(co); ok; v, ok = c.Recv(co) {
			sum += v
		}
	}, nil)
	co.Resume()
	l.Run(func() bool { return co.Status() == stackful.Dead })
	fmt.Println(sum)
	// Output: 5
}
