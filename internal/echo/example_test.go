package echo_test

import (
	"fmt"
	"log"

	"github.com/cogen-go/cogen/internal/echo"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

// Example runs the one source of Echo in both models on one loop: as a
// stackful coroutine on one connection and as its generated stackless frame
// (echo_cogen.go) on another. The README quotes it.
func Example() {
	l, err := loop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()

	// Two connections. The ends the handlers serve must be non-blocking: a
	// read that would block returns EAGAIN and the coroutine waits on the
	// loop's epoll instead. The peers are plain blocking sockets, each having
	// sent one message and then end of file.
	fd1, peer1 := connection("hello, stackful")
	fd2, peer2 := connection("hello, stackless")

	env := stackful.NewEnvOn(l) // the goroutine running l is its main coroutine
	var err1 error
	done1 := false
	co := env.Create(func(co *stackful.Co) { err1 = echo.Echo(co, fd1); done1 = true }, nil)
	co.Resume() // a stackful coroutine: runs until its first wait

	frame := echo.NewEchoFrame(fd2)
	task := stackless.Spawn(l, frame) // its stackless twin, on the same loop

	// Run the loop until both have finished; Echo closes its fd at end of file.
	if err := env.Run(func() bool { return done1 && task.Done() }); err != nil {
		log.Fatal(err)
	}
	fmt.Println("stackful:", err1, "stackless:", frame.Result())
	fmt.Println(readAll(peer1))
	fmt.Println(readAll(peer2))
	// Output:
	// stackful: <nil> stackless: <nil>
	// hello, stackful
	// hello, stackless
}

// connection returns a non-blocking socket for a handler and its blocking
// peer, which has written msg and shut down its writing side.
func connection(msg string) (fd, peer int) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		log.Fatal(err)
	}
	fd, peer = fds[0], fds[1]
	if err := unix.SetNonblock(peer, false); err != nil {
		log.Fatal(err)
	}
	if _, err := unix.Write(peer, []byte(msg)); err != nil {
		log.Fatal(err)
	}
	if err := unix.Shutdown(peer, unix.SHUT_WR); err != nil {
		log.Fatal(err)
	}
	return fd, peer
}

// readAll reads peer to end of file, then closes it.
func readAll(peer int) string {
	defer unix.Close(peer)
	var out []byte
	buf := make([]byte, 256)
	for {
		n, err := unix.Read(peer, buf)
		if err != nil {
			log.Fatal(err)
		}
		if n == 0 {
			return string(out)
		}
		out = append(out, buf[:n]...)
	}
}
