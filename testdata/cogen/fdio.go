package fdio

import (
	"fmt"
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// Run covers Read and Write on a non-blocking socket pair: a message larger
// than the socket buffer suspends Write until the other side reads.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Printf("socketpair: %v", err)
		return
	}
	msg := []byte(fmt.Sprintf("hello %d", t.Rand.Intn(1000)))
	n, err := co.Write(fds[0], msg)
	t.Printf("wrote %d %v", n, err)
	var buf [64]byte
	n, err = co.Read(fds[1], buf[:])
	t.Printf("read %q %v", buf[:n], err)
	done := 0
	for done < 2 {
		n, err = co.Write(fds[1], buf[:n])
		if err != nil {
			break
		}
		m, _ := co.Read(fds[0], buf[:])
		t.Printf("echo %q", buf[:m])
		done++
	}
	t.Loop.AfterFunc(time.Millisecond, func() { unix.Write(fds[0], []byte("late")) })
	n, err = pollRead(co, fds[1], buf[:])
	t.Printf("poll read %q %v", buf[:n], err)
	co.Close(fds[0])
	co.Close(fds[1])
	m, err := co.Read(fds[1], buf[:])
	t.Printf("read after close %d %v", m, err != nil)
}

// pollRead waits for fd to be readable with Poll, then reads.
//
//co:stackless
func pollRead(co *stackful.Co, fd int, buf []byte) (int, error) {
	fds := []loop.PollFd{{Fd: fd, Events: loop.EventIn}}
	n, err := co.Poll(fds, time.Second)
	if err != nil || n == 0 {
		return 0, err
	}
	return co.Read(fd, buf)
}
