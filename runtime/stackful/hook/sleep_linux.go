package hook

import (
	"time"

	"golang.org/x/sys/unix"
)

// Sleep is sleep(3): it sleeps for seconds and returns the seconds left
// unslept (always 0). In a hooked coroutine it waits on the loop while the
// env's other coroutines run; elsewhere it blocks the calling thread, as
// sleep(3) does.
func Sleep(seconds uint) uint {
	sleep(time.Duration(seconds) * time.Second)
	return 0
}

// Usleep is usleep(3), in microseconds; see Sleep.
func Usleep(usec uint) error {
	sleep(time.Duration(usec) * time.Microsecond)
	return nil
}

// Nanosleep is nanosleep(2); see Sleep. The sleep is never interrupted, so
// leftover, which nanosleep(2) writes only when interrupted, is left as it
// is: in a hooked coroutine it waits on the loop; elsewhere nanosleep(2)
// goes on with what is left after each EINTR, as Sleep's does, because Go's
// runtime interrupts system calls with signals of its own (SIGURG preempts
// goroutines), which a caller cannot tell from its own.
func Nanosleep(req, leftover *unix.Timespec) error {
	if req.Nsec < 0 || req.Nsec >= 1e9 || req.Sec < 0 {
		return unix.EINVAL
	}
	if co := hooked(); co != nil {
		co.Sleep(time.Duration(req.Nano()))
		return nil
	}
	left := *req
	for {
		err := unix.Nanosleep(&left, &left)
		if err != unix.EINTR {
			return err
		}
	}
}

func sleep(d time.Duration) {
	if co := hooked(); co != nil {
		co.Sleep(d)
		return
	}
	ts := unix.NsecToTimespec(int64(d))
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
