// Command peers serves cobench's load with the servers a user would pick
// instead of ours for an event-loop server: gnet v2 (an echo server on one
// event loop and on one per CPU) and fasthttp (the hello server). It lives
// in a module of its own, so that the main module keeps its three
// dependencies; `cobench -peers` builds it into a temporary directory and
// runs it as the child process of a peer's row, the way it runs its own
// binary for ours.
//
// A child is told its task in the COBENCH_CHILD environment variable (the
// JSON of cobench's task: Kind "echo", "http" or "http-wait", Mode, Conns, D), serves one
// window of the load client every cobench row uses (internal/echoload,
// started from this binary), and writes the bench.LoadResult as JSON on
// standard output. Without the variable it prints its models and exits 2.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/cogen-go/cogen/internal/bench"
	"github.com/cogen-go/cogen/internal/echoload"
)

// childEnv is cobench's: the JSON of the task.
const childEnv = "COBENCH_CHILD"

// task is the part of cobench's task that a peer uses.
type task struct {
	Kind  string        // "echo", "http" or "http-wait"
	Mode  string        // a model of EchoModels or HTTPModels
	Conns int           // connections
	D     time.Duration // load window
}

// loadTimeout is how long the load client may take beyond its window, as in
// cobench.
const loadTimeout = 15 * time.Second

// EchoModels are the peers' echo servers: gnet with one event loop, and
// with one per CPU.
var EchoModels = []string{"gnet/1", "gnet/N"}

// HTTPModels are the peers' hello servers.
var HTTPModels = []string{"fasthttp"}

func main() {
	echoload.MaybeRunChild()
	enc, ok := os.LookupEnv(childEnv)
	if !ok {
		fmt.Fprintf(os.Stderr, "peers: a child of cobench -peers (echo models %q, HTTP models %q)\n", EchoModels, HTTPModels)
		os.Exit(2)
	}
	var t task
	err := json.Unmarshal([]byte(enc), &t)
	var res bench.LoadResult
	if err == nil {
		res, err = t.run()
	}
	if err == nil {
		err = json.NewEncoder(os.Stdout).Encode(res)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func (t task) run() (bench.LoadResult, error) {
	cfg := echoload.Config{Conns: t.Conns, Duration: t.D, Timeout: t.D + loadTimeout}
	switch t.Kind {
	case "echo":
		return RunEcho(t.Mode, cfg)
	case "http":
		return RunHTTP(t.Mode, cfg)
	case "http-wait":
		return RunHTTPWait(t.Mode, cfg)
	}
	return bench.LoadResult{}, fmt.Errorf("unknown task kind %q", t.Kind)
}
