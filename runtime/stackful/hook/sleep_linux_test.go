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
// the start of the sleep. Here another goroutine sends SIGURG to the
// sleeping thread every millisecond until the call returns.
func TestNanosleepSignalled(t *testing.T) {
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
	const d = 50 * time.Millisecond
	left := unix.Timespec{Sec: 7}
	t0 := time.Now()
	err := Nanosleep(&unix.Timespec{Nsec: int64(d)}, &left)
	took := time.Since(t0)
	close(stop)
	<-stopped
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
