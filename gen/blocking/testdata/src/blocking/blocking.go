// Package blocking holds coroutine code that waits in Go's scheduler, for
// the blocking check (gen/blocking.go): each report with its fix, and the
// code it must leave alone.
package blocking

import (
	"net"
	"os/exec"
	"sync"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

//co:stackless
func sleeps(co *stackful.Co, d time.Duration) {
	time.Sleep(d)   // want `time.Sleep waits in Go's scheduler and freezes the coroutine's whole env: use co.Sleep`
	<-time.After(d) // want `<-time.After\(d\) waits in Go's scheduler and freezes .*: use co.Sleep\(d\)`
	co.Sleep(d)
}

// A function with the handle as a parameter is coroutine code, marked or not.
func waits(c *stackful.Co, wg *sync.WaitGroup, cond *sync.Cond, cmd *exec.Cmd) {
	wg.Wait()                          // want `sync.WaitGroup.Wait waits in Go's scheduler .*: use cosync.WaitGroup \(wg.Wait\(co\)\), or co.Offload`
	cond.Wait()                        // want `sync.Cond.Wait waits .*: use stackful.Cond`
	cmd.Run()                          // want `exec.Cmd.Run waits .*: use co.Offload`
	if err := cmd.Wait(); err != nil { // want `exec.Cmd.Wait waits`
		return
	}
}

func channels(co *stackful.Co, in, out chan int) {
	out <- 1            // want `a send on a Go channel waits in Go's scheduler .*: use cosync.Chan \(ch.Send\(co, v\)\)`
	v := <-in           // want `a receive from a Go channel waits .*: use cosync.Chan \(ch.Recv\(co\)\)`
	for x := range in { // want `range over a Go channel waits`
		v += x
	}
	select { // want `a Go select waits in Go's scheduler .*: use cosync.Select`
	case out <- v:
	case <-in:
	}
	select { // with a default, a select never waits
	case out <- v:
	default:
	}
	results := make(chan int, 1)
	results <- v // a buffered channel made here: the idiom of handing a result out
}

func locks(co *stackful.Co, mu *sync.Mutex, rw *sync.RWMutex) {
	mu.Lock() // want `mu is held across a suspension \(line 52\): a coroutine of this env that locks it then waits in Go's scheduler .*: use cosync.Mutex`
	co.Yield()
	mu.Unlock()

	mu.Lock() // held for a moment, never across a suspension: harmless
	mu.Unlock()
	co.Yield()

	rw.RLock() // want `rw is held across a suspension`
	defer rw.RUnlock()
	co.Gosched()
}

func dials(co *stackful.Co) (net.Conn, error) {
	return net.Dial("tcp", "127.0.0.1:1") // want `net.Dial waits in Go's scheduler .*: use conet.Dial`
}

func elsewhere(co *stackful.Co, ch chan int, mu *sync.Mutex) {
	go func() { ch <- 1 }()                      // another goroutine's code
	f := func() { time.Sleep(time.Millisecond) } // not this coroutine's code until called
	_ = f
	<-ch //co:blocking this line waits on purpose
	//co:blocking and so does the next one
	time.Sleep(time.Millisecond)
	inner := func(co2 *stackful.Co) {
		time.Sleep(time.Millisecond) // want `time.Sleep waits .*: use co2.Sleep`
	}
	_ = inner
}

// Without the handle, a function is not coroutine code.
func plain(ch chan int) {
	time.Sleep(time.Millisecond)
	<-ch
}
