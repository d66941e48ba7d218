// Package marked holds blocking calls in //co:stackless functions: only
// fixes cogen accepts are offered (co.Sleep), and the fix says to
// regenerate; co.Offload and conet are named in messages, never fixed in.
package marked

import (
	"net"
	"os"
	"sync"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

//co:stackless
func marked(co *stackful.Co, wg *sync.WaitGroup) ([]byte, error) {
	time.Sleep(time.Millisecond)  // want `time.Sleep waits .*: use co.Sleep`
	wg.Wait()                     // want `sync.WaitGroup.Wait waits .*: use cosync.WaitGroup \(wg.Wait\(co\)\) \(or`
	data, err := os.ReadFile("x") // want `os.ReadFile waits .*: use a function that is not //co:stackless, called with the handle, that runs it with co.Offload \(Offload has no stackless counterpart\)`
	if err != nil {
		return nil, err
	}
	c, err := net.Dial("tcp", "127.0.0.1:1") // want `net.Dial waits .*: use co.Connect on a non-blocking socket, or a function that is not //co:stackless using conet.Dial`
	if err == nil {
		c.Close()
	}
	return data, err
}

// unmarked is stackful coroutine code in the same file: its fix moves no
// line, so the generated file of marked stays fresh.
func unmarked(co *stackful.Co, wg *sync.WaitGroup) {
	wg.Wait() // want `sync.WaitGroup.Wait waits`
}
