//go:build unix

package echo

import "golang.org/x/sys/unix"

func setNoDelay(fd int) { unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) }
