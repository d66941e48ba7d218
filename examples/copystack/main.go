// Command copystack is libco's example_copystack on stackful coroutines:
// coroutines created with a shared-stack attribute. In libco they take
// turns on one 128 KiB stack and copy their used part out and in on every
// switch. Go cannot move a coroutine off its goroutine stack, so a share
// stack is a group of carrier goroutines instead: a coroutine starts on an
// idle carrier of its group, and when it finishes the carrier, stack
// included, serves the next one. The first part is libco's example (two
// coroutines printing and sleeping); the second runs a thousand short
// coroutines, sixteen at a time, on the same group.
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
	rounds := flag.Int("rounds", 3, "prints per coroutine in the first part")
	interval := flag.Duration("interval", 100*time.Millisecond, "sleep between prints (libco: 1 s)")
	flag.Parse()
	if err := run(os.Stdout, *rounds, *interval); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, rounds int, interval time.Duration) error {
	env, err := stackful.NewEnv()
	if err != nil {
		return err
	}
	defer env.Close()

	const carriers = 16
	share := stackful.AllocShareStack(carriers, 128<<10)
	attr := &stackful.Attr{ShareStack: share}

	// libco's example: two coroutines on the share stack.
	for id := range 2 {
		env.Create(func(co *stackful.Co) {
			var buf [128]byte // the stack buffer libco prints the address of
			for range rounds {
				n := copy(buf[:], fmt.Sprintf("from routineid %d", id))
				fmt.Fprintf(w, "%s\n", buf[:n])
				co.Sleep(interval) // libco: poll(NULL, 0, 1000)
			}
		}, attr).Resume()
	}
	if err := env.Run(func() bool { return env.Live() == 0 }); err != nil {
		return err
	}
	st := share.Stats()
	fmt.Fprintf(w, "2 coroutines alive at once ran on %d carriers; %d idle now\n", st.Carriers, st.Idle)

	// A thousand short coroutines, at most sixteen alive at once.
	const total = 1000
	var slot stackful.Cond
	main := env.Main()
	for range total {
		for env.Live() >= carriers {
			main.Wait(&slot, -1)
		}
		env.Create(func(co *stackful.Co) {
			co.Sleep(time.Millisecond)
			slot.Signal()
		}, attr).Resume()
	}
	for env.Live() > 0 {
		main.Wait(&slot, -1)
	}
	st2 := share.Stats()
	fmt.Fprintf(w, "%d coroutines, at most %d at once, ran on %d carriers: %d started on a reused carrier, %d carriers idle\n",
		total, carriers, st2.Carriers, st2.Reused-st.Reused, st2.Idle)
	return nil
}
