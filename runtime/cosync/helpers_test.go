package cosync_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

func sender(e *Env, m Model, c *cosync.Chan[int], vals []int, name string, log *Log) {
	e.Go(m, func(co *stackful.Co) { Sender(co, c, vals, name, log) },
		func() stackless.Frame { return NewSenderFrame(c, vals, name, log) })
}

func receiver(e *Env, m Model, c *cosync.Chan[int], n int, name string, log *Log) {
	e.Go(m, func(co *stackful.Co) { Receiver(co, c, n, name, log) },
		func() stackless.Frame { return NewReceiverFrame(c, n, name, log) })
}

func timedRecv(e *Env, m Model, c *cosync.Chan[int], d time.Duration, name string, log *Log) {
	e.Go(m, func(co *stackful.Co) { TimedRecv(co, c, d, name, log) },
		func() stackless.Frame { return NewTimedRecvFrame(c, d, name, log) })
}

func timedSend(e *Env, m Model, c *cosync.Chan[int], v int, d time.Duration, name string, log *Log) {
	e.Go(m, func(co *stackful.Co) { TimedSend(co, c, v, d, name, log) },
		func() stackless.Frame { return NewTimedSendFrame(c, v, d, name, log) })
}

// forModels runs a subtest per model.
func forModels(t *testing.T, fn func(t *testing.T, m Model)) {
	for _, m := range Models {
		t.Run(m.String(), func(t *testing.T) { fn(t, m) })
	}
}

func wantLog(t *testing.T, log *Log, want ...string) {
	t.Helper()
	if got := log.Lines(); !slices.Equal(got, want) {
		t.Fatalf("log:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// mustPanic runs fn and returns the message it panicked with.
func mustPanic(t *testing.T, fn func()) (msg string) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("no panic")
		}
		msg, _ = r.(string)
		if msg == "" {
			if e, ok := r.(error); ok {
				msg = e.Error()
			}
		}
	}()
	fn()
	return ""
}
