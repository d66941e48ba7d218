package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cogen-go/cogen/internal/bench"
	"github.com/cogen-go/cogen/internal/echoload"
)

// childEnv holds the JSON-encoded task of a child process.
const childEnv = "COBENCH_CHILD"

// A task is what one child process measures.
type task struct {
	Kind  string        // "memory", "sleep", "echo" or "http"
	Mode  string        // the model or mode
	N     int           // coroutines (memory, sleep)
	D     time.Duration // sleep duration, or load window (echo, http)
	Conns int           // connections (echo, http)
}

// maybeRunChild runs the task and exits if this process is a cobench
// child; otherwise it returns at once.
func maybeRunChild() {
	enc, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
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

func (t task) run() (any, error) {
	switch t.Kind {
	case "memory":
		return bench.Memory(t.Mode, t.N)
	case "sleep":
		return bench.Sleepers(t.Mode, t.N, t.D)
	case "echo":
		return bench.RunEcho(t.Mode, echoload.Config{Conns: t.Conns, Duration: t.D})
	case "http":
		return bench.RunHTTP(t.Mode, echoload.Config{Conns: t.Conns, Duration: t.D})
	}
	return nil, fmt.Errorf("unknown task %q", t.Kind)
}

// runChild runs t in a fresh child process and decodes its result into
// res. The child is killed after limit, and always reaped.
func runChild(t task, limit time.Duration, res any) error {
	exe, err := os.Executable()
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
	cmd.Env = append(os.Environ(), childEnv+"="+string(enc))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("killed after %v", limit)
		}
		return fmt.Errorf("%s %s: %v: %s", t.Kind, t.Mode, err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), res); err != nil {
		return fmt.Errorf("%s %s: child said %q: %v", t.Kind, t.Mode, stdout.String(), err)
	}
	return nil
}
