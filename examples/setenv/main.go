// Command setenv is libco's example_setenv on stackful coroutines: three
// coroutines set the same environment variable, sleep, and read it back,
// each seeing its own value, while the process environment keeps the value
// main set. libco gets there by hooking setenv/getenv for a list of names;
// here every coroutine has a private overlay over the process environment
// (Co.Setenv, Co.Getenv).
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
	pause := flag.Duration("pause", 500*time.Millisecond, "sleep between steps (libco: 500 ms)")
	flag.Parse()
	if err := run(os.Stdout, *pause); err != nil {
		log.Fatal(err)
	}
}

func setAndGetEnv(w io.Writer, co *stackful.Co, id int, pause time.Duration) {
	fmt.Fprintf(w, "routineid %d begin: CGINAME %s\n", id, co.Getenv("CGINAME"))
	co.Sleep(pause) // libco: poll(NULL, 0, 500)
	value := fmt.Sprintf("cgi_routine_%d", id)
	if err := co.Setenv("CGINAME", value); err != nil {
		fmt.Fprintf(w, "routineid %d set env: %v\n", id, err)
		return
	}
	fmt.Fprintf(w, "routineid %d set env CGINAME %s\n", id, value)
	co.Sleep(pause)
	got, ok := co.LookupEnv("CGINAME")
	if !ok {
		fmt.Fprintf(w, "routineid %d get env: not set\n", id)
		return
	}
	fmt.Fprintf(w, "routineid %d get env CGINAME %s\n", id, got)
}

func run(w io.Writer, pause time.Duration) error {
	if err := os.Setenv("CGINAME", "none"); err != nil {
		return err
	}
	env, err := stackful.NewEnv()
	if err != nil {
		return err
	}
	defer env.Close()

	var cos []*stackful.Co
	for id := range 3 {
		co := env.Create(func(co *stackful.Co) { setAndGetEnv(w, co, id, pause) }, nil)
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
	fmt.Fprintf(w, "main: CGINAME %s\n", os.Getenv("CGINAME"))
	return err
}
