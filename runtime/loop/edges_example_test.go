//go:build linux

package loop_test

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// A quit flag set by another goroutine is seen by an idle loop's stop
// function once that goroutine calls Wake; StopRun alone would do too.
func ExampleLoop_Wake() {
	l, err := loop.New()
	if err != nil {
		panic(err)
	}
	defer l.Close()
	var quit atomic.Bool
	go func() {
		time.Sleep(10 * time.Millisecond)
		quit.Store(true)
		l.Wake()
	}()
	err = l.Run(func() bool { return quit.Load() })
	fmt.Println(err, quit.Load())
	// Output: <nil> true
}
