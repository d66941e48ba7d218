//go:build linux || freebsd

package conet

import "golang.org/x/sys/unix"

// tcpKeepIdle is the option for the idle time before keep-alive probes.
const tcpKeepIdle = unix.TCP_KEEPIDLE

// dupOnto makes fd refer to what from refers to, close-on-exec.
func dupOnto(from, fd int) { unix.Dup3(from, fd, unix.O_CLOEXEC) }
