package conet

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// tcpKeepIdle is the option for the idle time before keep-alive probes.
const tcpKeepIdle = unix.TCP_KEEPALIVE

// dupOnto makes fd refer to what from refers to, close-on-exec (dup2, then
// the flag under ForkLock: Darwin has no dup3).
func dupOnto(from, fd int) {
	syscall.ForkLock.RLock()
	if unix.Dup2(from, fd) == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
}
