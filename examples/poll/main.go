//go:build linux

// Command poll is libco's example_poll on stackful coroutines: a coroutine
// starts non-blocking connects to a set of addresses and polls the sockets
// for POLLOUT until each has fired, printing what poll reports. As in libco
// it runs once on the main coroutine (whose Poll runs the loop itself) and
// then in ten coroutines at once. The targets are local: a listening
// socket, where the connect succeeds, and a closed port, where it is
// refused. A last poll on an empty pipe shows the timeout.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

func main() {
	routines := flag.Int("routines", 10, "coroutines polling at once")
	timeout := flag.Duration("timeout", time.Second, "poll timeout")
	flag.Parse()
	if err := run(os.Stdout, *routines, *timeout); err != nil {
		log.Fatal(err)
	}
}

type target struct {
	name string
	addr *unix.SockaddrInet4
}

func run(w io.Writer, routines int, timeout time.Duration) error {
	env, err := stackful.NewEnv()
	if err != nil {
		return err
	}
	defer env.Close()

	listener, addr, err := listen()
	if err != nil {
		return err
	}
	defer env.Main().Close(listener)
	closed, closedAddr, err := listen()
	if err != nil {
		return err
	}
	unix.Close(closed) // never registered with the loop: a plain close will do
	targets := []target{{"listener", addr}, {"closed port", closedAddr}}

	fmt.Fprintln(w, "--------------------- main -------------------")
	lines, err := pollRoutine(env.Main(), targets, timeout)
	if err != nil {
		return err
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}

	fmt.Fprintln(w, "--------------------- routine -------------------")
	results := make([][]string, routines)
	errs := make([]error, routines)
	var cos []*stackful.Co
	for i := range routines {
		co := env.Create(func(co *stackful.Co) {
			results[i], errs[i] = pollRoutine(co, targets, timeout)
		}, nil)
		fmt.Fprintf(w, "routine i %d\n", i)
		co.Resume()
		cos = append(cos, co)
	}
	allDone := func() bool {
		for _, co := range cos {
			if co.Status() != stackful.Dead {
				return false
			}
		}
		return true
	}
	if !allDone() {
		if err := env.Run(allDone); err != nil {
			return err
		}
	}
	for i := range routines {
		if errs[i] != nil {
			return errs[i]
		}
		fmt.Fprintf(w, "routine %d: %s\n", i, strings.Join(results[i], "; "))
	}

	fmt.Fprintln(w, "--------------------- timeout -------------------")
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return err
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	t0 := time.Now()
	fds := []loop.PollFd{{Fd: p[0], Events: loop.EventIn}}
	n, err := env.Main().Poll(fds, 50*time.Millisecond)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "poll on an empty pipe for 50ms: %d ready, revents %s, waited at least 50ms: %v\n",
		n, events(fds[0].Revents), time.Since(t0) >= 50*time.Millisecond)
	return nil
}

// pollRoutine connects to every target and polls until each socket fired.
func pollRoutine(co *stackful.Co, targets []target, timeout time.Duration) ([]string, error) {
	var lines []string
	fds := make([]loop.PollFd, len(targets))
	name := map[int]string{}
	for i, t := range targets {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		defer co.Close(fd)
		// As in libco, the connect is the plain non-blocking one: poll waits.
		if err := unix.Connect(fd, t.addr); err != nil && err != unix.EINPROGRESS {
			lines = append(lines, fmt.Sprintf("connect %s: %v", t.name, err))
		}
		fds[i] = loop.PollFd{Fd: fd, Events: loop.EventOut | loop.EventErr | loop.EventHup}
		name[fd] = t.name
	}
	fired := map[string]string{}
	wait := fds
	for len(fired) < len(targets) {
		n, err := co.Poll(wait, timeout)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			lines = append(lines, "poll timed out")
			break
		}
		var rest []loop.PollFd
		for _, p := range wait {
			if p.Revents != 0 {
				fired[name[p.Fd]] = events(p.Revents)
			} else {
				rest = append(rest, p)
			}
		}
		wait = rest
	}
	for _, t := range targets {
		if ev, ok := fired[t.name]; ok {
			lines = append(lines, fmt.Sprintf("%s fired: revents %s", t.name, ev))
		}
	}
	lines = append(lines, fmt.Sprintf("task cnt %d fire %d", len(targets), len(fired)))
	return lines, nil
}

func listen() (int, *unix.SockaddrInet4, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, nil, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return -1, nil, err
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		return -1, nil, err
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return -1, nil, err
	}
	return fd, sa.(*unix.SockaddrInet4), nil
}

// events names poll(2) bits.
func events(ev loop.Events) string {
	if ev == 0 {
		return "0"
	}
	var names []string
	for _, b := range []struct {
		bit  loop.Events
		name string
	}{
		{loop.EventIn, "POLLIN"}, {loop.EventPri, "POLLPRI"}, {loop.EventOut, "POLLOUT"},
		{loop.EventErr, "POLLERR"}, {loop.EventHup, "POLLHUP"}, {loop.EventNval, "POLLNVAL"},
		{loop.EventRdHup, "POLLRDHUP"},
	} {
		if ev&b.bit != 0 {
			names = append(names, b.name)
		}
	}
	return strings.Join(names, "|")
}
