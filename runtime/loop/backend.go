package loop

import (
	"fmt"
	"log"
	"os"
	"sync/atomic"
)

// A Backend is the mechanism a loop waits with. Linux has two, chosen when
// the loop is created: epoll, and io_uring used as a readiness engine (one
// multishot poll per registered fd, one io_uring_enter per iteration; see
// poller_uring_linux.go) that also serves connections registered with
// [Loop.RegisterCompletion] by completion (uring_comp_linux.go). Other platforms, and Linux under the build tag
// cogen_netpoll, have the portable poller only.
type Backend uint8

const (
	// BackendAuto is the environment variable COGEN_LOOP_BACKEND if set
	// ("epoll" or "uring"), else the platform's default: epoll on Linux
	// for a loop made with New, io_uring for a Group's loops (see
	// GroupConfig.Backend).
	BackendAuto Backend = iota
	BackendEpoll
	// BackendUring is io_uring. When the kernel lacks it, disables it
	// (kernel.io_uring_disabled), refuses it (EPERM, ENOSYS, a seccomp
	// filter) or lacks a feature it needs (Linux 5.17's), New falls back
	// to epoll and logs why, once per process.
	BackendUring
	BackendPortable // the portable poller on Go's runtime poller
)

// BackendEnv is the environment variable that [BackendAuto] reads.
const BackendEnv = "COGEN_LOOP_BACKEND"

var backendNames = [...]string{"auto", "epoll", "uring", "portable"}

func (b Backend) String() string {
	if int(b) < len(backendNames) {
		return backendNames[b]
	}
	return fmt.Sprintf("Backend(%d)", uint8(b))
}

// ParseBackend reads a backend name as BackendEnv spells it: "epoll",
// "uring" (or "io_uring"), "portable", or "auto" or "" for BackendAuto.
func ParseBackend(s string) (Backend, error) {
	switch s {
	case "", "auto":
		return BackendAuto, nil
	case "epoll":
		return BackendEpoll, nil
	case "uring", "io_uring", "iouring":
		return BackendUring, nil
	case "portable", "netpoll":
		return BackendPortable, nil
	}
	return BackendAuto, fmt.Errorf("loop: unknown backend %q (want epoll, uring, portable or auto)", s)
}

// NewBackend creates a loop on backend b. An explicit b wins over
// BackendEnv; a backend the platform lacks falls back to the default one
// with a log line (see [Loop.Backend] for the one chosen).
func NewBackend(b Backend) (*Loop, error) {
	if b == BackendAuto {
		b = envBackend()
	}
	p, got, err := newPoller(b)
	if err != nil {
		return nil, err
	}
	l := withPoller(p)
	l.backend = got
	if c, ok := p.(interface{ completion() compPoller }); ok {
		l.comp = c.completion()
	}
	return l, nil
}

// Backend reports the backend the loop runs on.
func (l *Loop) Backend() Backend { return l.backend }

// envBackend is BackendEnv's backend; an unknown name is logged (once) and
// read as BackendAuto.
func envBackend() Backend {
	b, err := ParseBackend(os.Getenv(BackendEnv))
	if err != nil {
		logOnce(&envLogged, "%v in %s; using the default", err, BackendEnv)
	}
	return b
}

var envLogged, fallbackLogged atomic.Bool

// logOnce logs once per process per flag.
func logOnce(flag *atomic.Bool, format string, args ...any) {
	if flag.CompareAndSwap(false, true) {
		log.Printf(format, args...)
	}
}

// WaitCalls reports the system calls the loop's backend has made to submit
// and wait: every io_uring_enter on io_uring (the iteration's, and those
// that make room in a full submission queue or submit a close's
// cancellation), and false on the other backends, whose waits are the
// iterations counted in [Stats].Polls. Call it on the loop goroutine.
func (l *Loop) WaitCalls() (uint64, bool) {
	if c, ok := l.poller.(interface{ enterCalls() uint64 }); ok {
		return c.enterCalls(), true
	}
	return 0, false
}
