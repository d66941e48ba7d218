// Command closure is libco's example_closure on stackful coroutines. libco
// builds closure objects with its co_ref/co_func macros to capture variables
// by reference and by value; in Go a func literal does both, so a task is
// just a closure run as a coroutine. Ten tasks share a reference to a
// total and a slice and capture their own i; two more sleep between prints
// so the batch interleaves. libco runs the batch on threads; here the
// coroutines of one env take turns, so the shared slice needs no mutex.
package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

func main() {
	if err := run(os.Stdout, time.Millisecond); err != nil {
		log.Fatal(err)
	}
}

// batchExec runs every task as a coroutine and returns when all are done.
func batchExec(env *stackful.Env, tasks []func(co *stackful.Co)) error {
	var cos []*stackful.Co
	for _, task := range tasks {
		co := env.Create(task, nil)
		co.Resume()
		cos = append(cos, co)
	}
	done := func() bool {
		for _, co := range cos {
			if co.Status() != stackful.Dead {
				return false
			}
		}
		return true
	}
	if done() {
		return nil
	}
	return env.Run(done)
}

func run(w io.Writer, pause time.Duration) error {
	env, err := stackful.NewEnv()
	if err != nil {
		return err
	}
	defer env.Close()

	var tasks []func(co *stackful.Co)
	total := 100
	var v2 []int
	for i := range 10 {
		// co_func(f, ref, i): total and v2 by reference, i by value.
		tasks = append(tasks, func(*stackful.Co) {
			fmt.Fprintf(w, "ref.total %d i %d\n", total, i)
			v2 = append(v2, i)
		})
	}
	for i := range 2 {
		// co_func(f2, i): sleeps between prints (libco: usleep(1000)).
		tasks = append(tasks, func(co *stackful.Co) {
			fmt.Fprintf(w, "i: %d\n", i)
			for j := range 2 {
				co.Sleep(pause)
				fmt.Fprintf(w, "i %d j %d\n", i, j)
			}
		})
	}
	if err := batchExec(env, tasks); err != nil {
		return err
	}
	s := make([]string, len(v2))
	for k, v := range v2 {
		s[k] = fmt.Sprint(v)
	}
	fmt.Fprintf(w, "v2 %s\n", strings.Join(s, " "))
	return nil
}
