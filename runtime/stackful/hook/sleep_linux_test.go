package hook

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestNanosleepSignalled: outside a hooked coroutine, Nanosleep sleeps the
// whole time even when signals interrupt nanosleep(2), and leaves leftover
// as it is. Go's runtime interrupts system calls with its own signals
// (SIGURG, which preempts goroutines), which a caller cannot tell from its
// own: TestPlainOutsideCoroutines's nanosleep case failed beside two CPU
// hogs with "leftover {0 40037011} after a full sleep" when one landed at
// the start of the sleep.
func TestNanosleepSignalled(t *testing.T) {
	const d = 50 * time.Millisecond
	left := unix.Timespec{Sec: 7}
	var err error
	took := signalled(func() { err = Nanosleep(&unix.Timespec{Nsec: int64(d)}, &left) })
	if err != nil {
		t.Fatalf("Nanosleep: %v after %v", err, took)
	}
	if took < d {
		t.Errorf("Nanosleep returned after %v of %v", took, d)
	}
	if left != (unix.Timespec{Sec: 7}) {
		t.Errorf("leftover written: %v", left)
	}
}

// TestPollSignalled: outside a hooked coroutine, Poll waits its whole
// timeout when signals interrupt poll(2), which they do whatever
// SA_RESTART says.
func TestPollSignalled(t *testing.T) {
	a, _ := socketpair(t, unix.SOCK_STREAM)
	var n int
	var err error
	took := signalled(func() { n, err = Poll([]unix.PollFd{{Fd: int32(a), Events: unix.POLLIN}}, 50) })
	if err != nil || n != 0 {
		t.Fatalf("Poll = %d, %v after %v, want 0 after the timeout", n, err, took)
	}
	if took < 50*time.Millisecond {
		t.Errorf("Poll returned after %v of its 50 ms", took)
	}
}

// signalled runs call on a thread of its own while another goroutine sends
// that thread SIGURG every millisecond, and returns how long call took.
func signalled(call func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pid, tid := unix.Getpid(), unix.Gettid()
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			unix.Tgkill(pid, tid, unix.SIGURG)
			time.Sleep(time.Millisecond)
		}
	}()
	t0 := time.Now()
	call()
	took := time.Since(t0)
	close(stop)
	<-stopped
	return took
}
