//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/cogen-go/cogen/internal/bench"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/runtime/loop"
)

// childEnv holds the JSON-encoded task of a child process.
const childEnv = "COBENCH_CHILD"

// A task is what one child process measures.
type task struct {
	Kind  string        // "memory", "checkpoint", "idle", "sleep", "echo", "http", "http-wait" or "scale"
	Mode  string        // the model or mode
	N     int           // coroutines (memory, sleep) or connections (idle)
	D     time.Duration // sleep duration, or load window (echo, http)
	Conns int           // connections (echo, http)
	// Backend is the loop backend of the child's loops, as
	// loop.BackendEnv spells it: "uring" for the io_uring rows; empty for
	// epoll, the other rows' backend (set explicitly, whatever the
	// parent's environment says).
	Backend string `json:",omitempty"`
	// Wrk makes wrk the load client of an HTTP row (wrk.go).
	Wrk bool `json:",omitempty"`
}

// echoLoadTimeout is how long the load client may take beyond its window
// (connection setup included) before it gives up; the parent waits
// loadSlack.
const echoLoadTimeout = 15 * time.Second

// maybeRunChild runs the task and exits if this process is a cobench
// child; otherwise it returns at once.
func maybeRunChild() {
	enc, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	dumpOnQuit()
	var t task
	err := json.Unmarshal([]byte(enc), &t)
	var res any
	if err == nil {
		res, err = t.run()
	}
	if err == nil {
		err = json.NewEncoder(os.Stdout).Encode(res)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cobench child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// dumpOnQuit makes SIGQUIT, which the parent sends a child that overruns,
// write what every event loop of the child waits for and then every
// goroutine's stack to stderr before the child exits: the evidence of a
// hang, kept by the parent in a file.
func dumpOnQuit() {
	quit := make(chan os.Signal, 1)
	signal.Notify(quit, syscall.SIGQUIT)
	go func() {
		<-quit
		fmt.Fprintln(os.Stderr, "cobench child: SIGQUIT: the event loops and goroutines follow")
		loop.DumpAll(os.Stderr, time.Second)
		pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
		os.Exit(2)
	}()
}

// hang is a child that never finishes: a loop with a waiter parked for an
// hour. TestChildHangDump uses it to check an overrunning child leaves its
// evidence.
func hang() error {
	l, err := loop.New()
	if err != nil {
		return err
	}
	var w loop.Waiter
	w.Init(l, hangRunner{})
	w.Sleep(time.Hour)
	return l.Run(nil)
}

type hangRunner struct{}

func (hangRunner) Run()             {}
func (hangRunner) Describe() string { return "the hang task's sleeper" }

func (t task) run() (any, error) {
	switch t.Kind {
	case "memory":
		return bench.Memory(t.Mode, t.N)
	case "checkpoint":
		return runCheckpointChild(t.N)
	case "sleep":
		return bench.Sleepers(t.Mode, t.N, t.D)
	case "idle":
		return bench.IdleConns(t.Mode, t.N)
	case "coromicro":
		return runCoroMicros(t.D, t.N)
	case "echo":
		return bench.RunEcho(t.Mode, echoload.Config{Conns: t.Conns, Duration: t.D, Timeout: t.D + echoLoadTimeout})
	case "http":
		return bench.RunHTTP(t.Mode, echoload.Config{Conns: t.Conns, Duration: t.D, Timeout: t.D + echoLoadTimeout, Wrk: t.Wrk})
	case "http-wait":
		return bench.RunHTTPWait(t.Mode, echoload.Config{Conns: t.Conns, Duration: t.D, Timeout: t.D + echoLoadTimeout, Wrk: t.Wrk})
	case "hang":
		return nil, hang()
	case "scale":
		return bench.RunScale(t.Mode, echoload.Config{Conns: t.Conns, Duration: t.D, Timeout: t.D + echoLoadTimeout})
	}
	return nil, fmt.Errorf("unknown task %q", t.Kind)
}

// runChild runs t in a fresh child process and decodes its result into
// res. The child is killed after limit, and always reaped.
func runChild(t task, limit time.Duration, res any) error {
	exe, err := childExe(t)
	if err != nil {
		return err
	}
	enc, err := json.Marshal(t)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	backend := t.Backend
	if backend == "" {
		backend = "epoll"
	}
	cmd.Env = append(os.Environ(), childEnv+"="+string(enc), loop.BackendEnv+"="+backend)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Past the limit the child gets SIGQUIT, so that the Go runtime prints
	// every goroutine's stack to its stderr before it exits; five seconds
	// later it is killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("stopped after %v", limit)
		}
		return fmt.Errorf("%s %s%s: %v%s", t.Kind, t.Mode, backendSuffix(t.Backend), err, explain(t, stderr.Bytes()))
	}
	if err := json.Unmarshal(stdout.Bytes(), res); err != nil {
		return fmt.Errorf("%s %s: child said %q: %v", t.Kind, t.Mode, stdout.String(), err)
	}
	return nil
}

// explain returns what a failed child wrote to its stderr: the first
// lines, and the path of a file that holds all of it (a goroutine dump can
// be long).
func explain(t task, stderr []byte) string {
	msg := strings.TrimSpace(string(stderr))
	if msg == "" {
		return " (nothing on its stderr)"
	}
	lines := strings.SplitN(msg, "\n", 11)
	head := strings.Join(lines[:min(len(lines), 10)], "\n")
	if len(lines) <= 10 {
		return ":\n" + head
	}
	f, err := os.CreateTemp("", "cobench-"+t.Kind+"-*.log")
	if err != nil {
		return ":\n" + head + "\n..."
	}
	defer f.Close()
	f.Write(stderr)
	return ":\n" + head + "\n... (all of its stderr is in " + f.Name() + ")"
}

// runChildRetry is runChild, once more in a fresh process if the first
// one fails: a rare failure (a hang, a port the system ran short of) then
// costs one window instead of the whole run. The first failure is reported
// on p, and retried says it happened: the row's note says so (retryNote).
func runChildRetry(p *progress, t task, limit time.Duration, res any) (retried bool, err error) {
	err = runChild(t, limit, res)
	if err == nil {
		return false, nil
	}
	p.note("%v\nretrying in a fresh process", err)
	return true, runChild(t, limit, res)
}

// retryNote is the note of a row some of whose windows failed once and ran
// again in a fresh process ("" if none did): its figures come from the
// retries, and the failures are in the progress log.
func retryNote(retried, windows int) string {
	if retried == 0 {
		return ""
	}
	return fmt.Sprintf("RETRIED: %d of %d windows failed once and ran again in a fresh process (see the progress log)", retried, windows)
}
