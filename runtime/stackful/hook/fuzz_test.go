//go:build linux

package hook

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
	"golang.org/x/sys/unix"
)

// hookEnd is one end of a socketpair used through the hooked calls. Like
// the system calls they stand for, they return -1 with an error; the model
// counts bytes, so the wrapper reports 0.
type hookEnd struct{ fd int }

func (h hookEnd) Read(p []byte) (int, error)  { return nonNegative(Read(h.fd, p)) }
func (h hookEnd) Write(p []byte) (int, error) { return nonNegative(Write(h.fd, p)) }

func nonNegative(n int, err error) (int, error) {
	if n < 0 {
		if err == nil {
			panic("hook: -1 without an error")
		}
		return 0, err
	}
	return n, err
}
func (h hookEnd) CloseWrite() error { return unix.Shutdown(h.fd, unix.SHUT_WR) }
func (h hookEnd) Close() error      { return Close(h.fd) }

func (h hookEnd) SetTimeout(d time.Duration) error {
	tv := unix.NsecToTimeval(int64(d))
	if err := SetsockoptTimeval(h.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return err
	}
	return SetsockoptTimeval(h.fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
}

// runHookScript runs one script on a fresh socketpair and env.
func runHookScript(t testing.TB, script []byte) {
	e := cotest.NewEnv(t)
	fds, err := Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = cotest.StreamOps{Script: script, Immediate: true}.Run(t, e, hookEnd{fds[0]}, hookEnd{fds[1]})
	Close(fds[0])
	Close(fds[1])
	if err != nil {
		t.Fatalf("script %x:\n%v", script, err)
	}
}

// FuzzHookStreamOps runs random interleavings of hooked reads, writes,
// timeouts, shutdowns and closes on both ends of a socketpair, each end in
// its own coroutine, against the model of two byte streams.
func FuzzHookStreamOps(f *testing.F) {
	f.Add([]byte{0, 10, 3, 5, 1, 10, 2, 0, 8, 0})                   // write, read, close
	f.Add([]byte{2, 200, 3, 3, 0, 255, 1, 255, 1, 255, 6, 0, 9, 0}) // a large write read in pieces, shutdown, EOF
	f.Add([]byte{3, 4, 0, 1, 9, 0, 1, 9})                           // a read that times out, then a close
	f.Add([]byte{8, 0, 0, 1, 1, 1, 9, 0})                           // operations after Close
	f.Fuzz(func(t *testing.T, script []byte) { runHookScript(t, script) })
}

// TestHookStreamOpsRandom runs a fixed set of random scripts, so plain
// `go test` covers what the fuzzer explores.
func TestHookStreamOpsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 150
	if testing.Short() {
		n = 30
	}
	for range n {
		script := make([]byte, 2*(1+rng.IntN(40)))
		for i := range script {
			script[i] = byte(rng.Uint32())
		}
		runHookScript(t, script)
	}
}
