// Command peers serves cobench's load with the servers a user would pick
// instead of ours for an event-loop server: echo servers of gnet v2,
// cloudwego/netpoll and lesismal/nbio, each on one event loop (poller) and
// on one per CPU, and the hello servers of fasthttp and nbio's nbhttp. It lives
// in a module of its own, so that the main module keeps its three
// dependencies; `cobench -peers` builds it into a temporary directory and
// runs it as the child process of a peer's row, the way it runs its own
// binary for ours.
//
// A child is told its task in the COBENCH_CHILD environment variable (the
// JSON of cobench's task: Kind "echo", "http" or "http-wait", Mode, Conns, D, Wrk), serves one
// window of the load client every cobench row uses (internal/echoload,
// started from this binary; or wrk, with Wrk), and writes the bench.LoadResult as JSON on
// standard output. Without the variable it prints its models and exits 2.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"
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
	Wrk   bool          // wrk is the load client (an HTTP kind)
}

// loadTimeout is how long the load client may take beyond its window, as in
// cobench.
const loadTimeout = 15 * time.Second

// EchoModels are the peers' echo servers: each library with one event
// loop (poller), and with one per CPU.
var EchoModels = []string{"gnet/1", "gnet/N", "netpoll/1", "netpoll/N", "nbio/1", "nbio/N"}

// HTTPModels are the peers' hello servers: fasthttp (a goroutine per
// connection on Go's poller) and nbhttp (nbio's HTTP server, one poller).
var HTTPModels = []string{"fasthttp", "nbhttp"}

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
	cfg := echoload.Config{Conns: t.Conns, Duration: t.D, Timeout: t.D + loadTimeout, Wrk: t.Wrk}
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

// StartEcho starts the echo server of the model on a free port of
// 127.0.0.1 and returns its address and the function that stops it.
func StartEcho(model string) (addr string, stop func() error, err error) {
	lib, _, _ := strings.Cut(model, "/")
	switch lib {
	case "gnet":
		return startGnet(model)
	case "netpoll":
		return startNetpoll(model)
	case "nbio":
		return startNbio(model)
	}
	return "", nil, fmt.Errorf("unknown echo model %q", model)
}

// RunEcho serves one load window (cfg.Addr is filled in) with the echo
// server of the model and returns what the load client measured. The
// peers' event loops are not observable: LoopPolls is -1; netpoll's
// system calls are not counted (ServerReads and ServerWrites are -1).
func RunEcho(model string, cfg echoload.Config) (bench.LoadResult, error) {
	lib, _, _ := strings.Cut(model, "/")
	addr, stop, err := StartEcho(model)
	if err != nil {
		return bench.LoadResult{}, err
	}
	cfg.Addr = addr
	res, err := bench.ServeLoad(cfg, func(time.Duration) error { return stop() }, nil)
	if lib == "netpoll" {
		// netpoll writes with sendmsg, which /proc/self/io does not count:
		// its read+write count would be half the truth.
		res.ServerReads, res.ServerWrites = -1, -1
	}
	return bench.LoadResult{Result: res, LoopPolls: -1}, err
}

// StartHTTP starts the hello server of the model on a free port of
// 127.0.0.1 and returns its address and the function that stops it.
func StartHTTP(model string) (addr string, stop func() error, err error) {
	return startHTTP(model, false)
}

// startHTTP starts the hello server of the model, whose handler waits
// hello.DefaultWait first if wait is set.
func startHTTP(model string, wait bool) (addr string, stop func() error, err error) {
	switch model {
	case "fasthttp":
		if wait {
			return startFasthttp(waitingHelloHandler)
		}
		return startFasthttp(helloHandler)
	case "nbhttp":
		if wait {
			return startNbhttp(model, nbhttpWaitingHello)
		}
		return startNbhttp(model, nbhttpHello)
	}
	return "", nil, fmt.Errorf("unknown HTTP model %q", model)
}

// RunHTTP serves one HTTP load window (cfg.Addr and cfg.HTTP are filled
// in) with the hello server of the model and returns what the load client
// measured; LoopPolls is -1.
func RunHTTP(model string, cfg echoload.Config) (bench.LoadResult, error) {
	return runHTTP(model, cfg, false)
}

// RunHTTPWait is RunHTTP with a handler that waits hello.DefaultWait
// before answering (cobench's "http-wait" rows).
func RunHTTPWait(model string, cfg echoload.Config) (bench.LoadResult, error) {
	return runHTTP(model, cfg, true)
}

func runHTTP(model string, cfg echoload.Config, wait bool) (bench.LoadResult, error) {
	addr, stop, err := startHTTP(model, wait)
	if err != nil {
		return bench.LoadResult{}, err
	}
	cfg.Addr, cfg.HTTP = addr, true
	res, err := bench.ServeLoad(cfg, func(time.Duration) error { return stop() }, nil)
	return bench.LoadResult{Result: res, LoopPolls: -1}, err
}

// echoOnce sends a byte to the echo server at addr and reads it back.
func echoOnce(addr string) error {
	c, err := net.DialTimeout("tcp4", addr, 10*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte{'x'}); err != nil {
		return err
	}
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		return err
	}
	if b[0] != 'x' {
		return errors.New("echo differs")
	}
	return nil
}

// logStderr logs a peer library's warning or error on standard error
// (standard output carries the child's result).
func logStderr(format string, args ...any) { log.Printf(format, args...) }
