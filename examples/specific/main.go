// Command specific is libco's example_specific on stackful coroutines: ten
// coroutines store their id in one coroutine-specific variable
// (CO_ROUTINE_SPECIFIC in libco, a typed stackful.Key here) and keep
// reading it back between sleeps, each seeing its own value. The main
// coroutine has its own value too.
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
	rounds := flag.Int("rounds", 3, "times each coroutine prints its value")
	interval := flag.Duration("interval", 100*time.Millisecond, "sleep between prints (libco: 1 s)")
	flag.Parse()
	if err := run(os.Stdout, 10, *rounds, *interval); err != nil {
		log.Fatal(err)
	}
}

// routineData is libco's stRoutineSpecificData_t.
type routineData struct{ idx int }

// specific is the coroutine-specific variable: each coroutine has its own
// *routineData under this key.
var specific = stackful.NewKey[*routineData]()

// data returns the calling coroutine's value, creating it on first use
// (what CO_ROUTINE_SPECIFIC's operator-> does).
func data(co *stackful.Co) *routineData {
	d := specific.Get(co)
	if d == nil {
		d = new(routineData)
		specific.Set(co, d)
	}
	return d
}

func run(w io.Writer, routines, rounds int, interval time.Duration) error {
	env, err := stackful.NewEnv()
	if err != nil {
		return err
	}
	defer env.Close()

	data(env.Main()).idx = -1
	var cos []*stackful.Co
	for id := range routines {
		co := env.Create(func(co *stackful.Co) {
			data(co).idx = id
			for range rounds {
				fmt.Fprintf(w, "routine %d: specific data idx %d\n", id, data(co).idx)
				co.Sleep(interval) // libco: poll(NULL, 0, 1000)
			}
		}, nil)
		co.Resume()
		cos = append(cos, co)
	}
	err = env.Run(func() bool {
		for _, co := range cos {
			if co.Status() != stackful.Dead {
				return false
			}
		}
		return true
	})
	fmt.Fprintf(w, "main: specific data idx %d\n", data(env.Main()).idx)
	return err
}
