//go:build linux

package main

import (
	"net/http"
	"strings"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// sleepRoute answers GET /sleep/{duration} for the cohttp servers: it
// waits that long through the coroutine handle, and the loop serves the
// other connections meanwhile. One source: the stackful server calls it on
// the connection's coroutine, the stackless one runs sleepRouteFrame, which
// cogen generated from it.
//
//co:stackless
func sleepRoute(co *stackful.Co, w *cohttp.ResponseWriter, r *cohttp.Request) {
	d, ok := sleepDuration(strings.TrimPrefix(string(r.Path()), "/sleep/"))
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		w.WriteString(badDuration + "\n")
		return
	}
	co.Sleep(d)
	w.WriteString("Slept " + d.String() + "\n")
}

// sleepHandler is sleepRoute as a cohttp.WaitHandler.
var sleepHandler = cohttp.Waiting(sleepRoute, newSleepRouteFrame)

// maxSleep bounds what /sleep/{duration} waits.
const maxSleep = 10 * time.Second

const badDuration = "the duration must be like 10ms, at most 10s"

// sleepDuration parses the duration of /sleep/{duration}.
func sleepDuration(s string) (time.Duration, bool) {
	d, err := time.ParseDuration(s)
	return d, err == nil && d >= 0 && d <= maxSleep
}
