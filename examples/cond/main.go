// Command cond is libco's example_cond on stackful coroutines: a producer
// pushes tasks onto a queue and signals a condition variable; a consumer
// waits on it and drains the queue. Signal does not switch to the consumer:
// it queues it on the loop, which resumes it once the producer sleeps.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

func main() {
	n := flag.Int("n", 5, "tasks to produce")
	interval := flag.Duration("interval", 100*time.Millisecond, "producer's pause between tasks (libco: 1 s)")
	flag.Parse()
	if err := run(os.Stdout, *n, *interval); err != nil {
		log.Fatal(err)
	}
}

type task struct{ id int }

func run(w io.Writer, n int, interval time.Duration) error {
	env, err := stackful.NewEnv()
	if err != nil {
		return err
	}
	defer env.Close()

	var cond stackful.Cond
	var queue []*task
	done := false

	consumer := env.Create(func(co *stackful.Co) {
		for {
			if len(queue) == 0 {
				if done {
					return
				}
				co.Wait(&cond, -1)
				continue
			}
			t := queue[0]
			queue = queue[1:]
			fmt.Fprintf(w, "consume task %d\n", t.id)
		}
	}, nil)
	consumer.Resume()

	producer := env.Create(func(co *stackful.Co) {
		for id := range n {
			queue = append(queue, &task{id: id})
			fmt.Fprintf(w, "produce task %d\n", id)
			cond.Signal()
			co.Sleep(interval) // libco: poll(NULL, 0, 1000)
		}
		done = true
		cond.Signal()
	}, nil)
	producer.Resume()

	return env.Run(func() bool { return consumer.Status() == stackful.Dead })
}
