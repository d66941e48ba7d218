//go:build linux

package stackful_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// Stop ends an env's Run from another goroutine (a signal handler, say),
// even while the loop is idle: a stop condition set by that goroutine
// would not be seen until something woke the loop.
func ExampleEnv_Stop() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer env.Close()
	go func() {
		time.Sleep(10 * time.Millisecond)
		env.Stop()
	}()
	fmt.Println(env.Run(nil)) // nothing to do: idle until Stop
	// Output:
	// <nil>
}

// A coroutine's panic reaches its resumer with the original value; the
// coroutine's own stack, lost in the resumer's traceback, is kept.
func ExampleCo_PanicStack() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer env.Close()
	co := env.Create(func(co *stackful.Co) { panic(errors.New("boom")) }, nil)
	func() {
		defer func() { fmt.Println("recovered:", recover()) }()
		co.Resume()
	}()
	fmt.Println(co.PanicStack() != "")
	// Output:
	// recovered: boom
	// true
}
