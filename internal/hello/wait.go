//go:build unix

package hello

import (
	"strconv"
	"strings"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// DefaultWait is how long Wait sleeps for a request that does not say.
const DefaultWait = time.Millisecond

// wait is the hello answer after a sleep through the coroutine handle: the
// query's ms=N (at most 50) milliseconds, DefaultWait without one. One
// source for both of cohttp's models (wait_cogen.go holds its frame).
//
//co:stackless
func wait(co *stackful.Co, w *cohttp.ResponseWriter, r *cohttp.Request) {
	d := DefaultWait
	if _, q, ok := strings.Cut(string(r.URI()), "?ms="); ok {
		ms, _ := strconv.Atoi(q)
		d = time.Duration(min(max(ms, 0), 50)) * time.Millisecond
	}
	co.Sleep(d)
	Handler(w, r)
}

// Wait is the hello server whose handler waits: a cohttp.WaitHandler that
// sleeps (DefaultWait, or the query's ms=N) and then answers as Handler
// does. It stands for a handler that calls a database or another service.
var Wait = cohttp.Waiting(wait, newWaitFrame)
