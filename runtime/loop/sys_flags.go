//go:build linux || freebsd

package loop

import "golang.org/x/sys/unix"

// Socket is socket(2) for a descriptor the loop can use: non-blocking and
// close-on-exec, in one system call where the kernel takes the flags (see
// sys_darwin.go for where it does not).
func Socket(family, typ, proto int) (int, error) {
	return unix.Socket(family, typ|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, proto)
}

// Accept is accept(2) for a descriptor the loop can use: the connection's
// fd is non-blocking and close-on-exec. Errors are the system call's.
func Accept(fd int) (int, unix.Sockaddr, error) {
	return unix.Accept4(fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
}
