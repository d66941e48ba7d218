package durable_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/internal/testwf"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// A workflow (testwf.Counter: n steps, a checkpoint after each) started in
// a directory store and run by a runner until it is done.
func Example() {
	dir, _ := os.MkdirTemp("", "durable-example")
	defer os.RemoveAll(dir)
	store, err := durable.OpenDir(dir)
	if err != nil {
		panic(err)
	}
	defer store.Close()

	r := durable.NewRunner(store, durable.Options{})
	go r.Run(context.Background())
	defer r.Close()

	err = durable.Do(func(co *stackful.Co) error {
		id := durable.ID("order-42")
		if err := durable.Start(co, store, id, testwf.NewCounterFrame(id, 4)); err != nil {
			return err
		}
		in, err := durable.Await(co, store, id, 10*time.Millisecond)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %s, result %s, %d checkpoints\n", in.ID, in.State, in.Result, in.Seq-1)
		return nil
	})
	if err != nil {
		panic(err)
	}
	// Output: order-42: done, result 10, 4 checkpoints
}
