package loop

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Darwin has neither SOCK_NONBLOCK nor accept4: the flags are set after the
// call, under syscall.ForkLock so that no fork in between inherits the
// descriptor (as Go's net package does).

// Socket is socket(2) for a descriptor the loop can use: non-blocking and
// close-on-exec.
func Socket(family, typ, proto int) (int, error) {
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(family, typ, proto)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// Accept is accept(2) for a descriptor the loop can use: the connection's
// fd is non-blocking and close-on-exec. Errors are the system call's.
func Accept(fd int) (int, unix.Sockaddr, error) {
	syscall.ForkLock.RLock()
	nfd, sa, err := unix.Accept(fd)
	if err == nil {
		unix.CloseOnExec(nfd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, nil, err
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		return -1, nil, err
	}
	return nfd, sa, nil
}
