//go:build linux

package hook_test

import (
	"fmt"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/hook"
	"golang.org/x/sys/unix"
)

// A libco-style echo: blocking-style socket code in coroutines with hooks
// enabled, all on one env.
func Example() {
	env, _ := stackful.NewEnv()
	defer env.Close()

	lfd, _ := hook.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	unix.Bind(lfd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	unix.Listen(lfd, 16)
	sa, _ := unix.Getsockname(lfd)

	server := env.Create(func(co *stackful.Co) {
		co.EnableHook() // co_enable_hook_sys
		fd, _, _ := hook.Accept(lfd)
		defer hook.Close(fd)
		buf := make([]byte, 64)
		n, _ := hook.Read(fd, buf) // waits on the loop; the client runs
		hook.Write(fd, buf[:n])
	}, nil)
	var reply string
	client := env.Create(func(co *stackful.Co) {
		co.EnableHook()
		fd, _ := hook.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
		defer hook.Close(fd)
		hook.Connect(fd, sa)
		hook.Write(fd, []byte("hello"))
		buf := make([]byte, 64)
		n, _ := hook.Read(fd, buf)
		reply = string(buf[:n])
	}, nil)
	server.Resume()
	client.Resume()
	env.Run(func() bool { return reply != "" })
	hook.Close(lfd)
	fmt.Println(reply)
	// Output: hello
}
