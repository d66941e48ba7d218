// Prodcons is libco's example_cond, a producer and two consumers sharing a
// queue and a condition variable, on the cogen event loop. It runs either
// model: the stackful coroutines Producer and Consumer, or their stackless
// twins written by hand in the shape cogen generates; both print the same.
//
// Usage:
//
//	prodcons [-model stackless|stackful] [-rounds n] [-interval d] [-seed n]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// consumers is the number of consumer coroutines, as in libco's example.
const consumers = 2

func main() {
	log.SetFlags(0)
	log.SetPrefix("prodcons: ")
	model := flag.String("model", "stackless", "coroutine model: stackless (hand-written frames) or stackful")
	rounds := flag.Int("rounds", 5, "producer rounds")
	interval := flag.Duration("interval", time.Second, "the producer's pause between rounds (libco: poll(NULL, 0, 1000))")
	seed := flag.Uint64("seed", 1, "seed of the number of items per round")
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, *model, *rounds, *interval, *seed); err != nil {
		log.Fatal(err)
	}
}

// run starts the producer and then the consumers, each running until its
// first wait as co_resume does in libco's main, and then runs the loop until
// all of them have returned.
func run(out io.Writer, model string, rounds int, interval time.Duration, seed uint64) error {
	l, err := loop.New()
	if err != nil {
		return err
	}
	defer l.Close()
	p := NewPara(out, rounds, interval, seed)
	switch model {
	case "stackless":
		tasks := []*stackless.Task{stackless.Spawn(l, NewHandProducerFrame(p))}
		if err := l.RunOnce(); err != nil { // the producer's first step
			return err
		}
		fmt.Fprintln(out, "start producer coroutine success")
		for range consumers {
			tasks = append(tasks, stackless.Spawn(l, NewHandConsumerFrame(p)))
		}
		if err := l.RunOnce(); err != nil {
			return err
		}
		fmt.Fprintln(out, "start consumer coroutine success")
		return stackless.Run(l, tasks...)
	case "stackful":
		env := stackful.NewEnvOn(l)
		defer env.Close()
		env.Create(func(co *stackful.Co) { Producer(co, p) }, nil).Resume()
		fmt.Fprintln(out, "start producer coroutine success")
		for range consumers {
			env.Create(func(co *stackful.Co) { Consumer(co, p) }, nil).Resume()
		}
		fmt.Fprintln(out, "start consumer coroutine success")
		return env.Run(func() bool { return env.Live() == 0 })
	}
	return errors.New("unknown model " + model)
}
