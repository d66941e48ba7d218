//go:build linux

package loop

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawRead and rawWrite are read(2) and write(2) without telling the Go
// scheduler that a system call is under way (RawSyscall): they save the
// entersyscall/exitsyscall pair, about 4 % of an echo server's CPU, and are
// used only on fds registered with the loop, which are non-blocking by
// contract and never regular files (epoll refuses those), so the call
// returns within microseconds and keeping the P meanwhile costs nothing.
// Go's own poller and gnet make their non-blocking epoll calls the same way.

func rawRead(fd int, p []byte) (int, error) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(ptr), uintptr(len(p)))
	if e != 0 {
		return int(r), e
	}
	raceWritten(p[:r])
	return int(r), nil
}

func rawWrite(fd int, p []byte) (int, error) {
	raceRead(p)
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(ptr), uintptr(len(p)))
	if e != 0 {
		return int(r), e
	}
	return int(r), nil
}

// sockType is getsockopt(fd, SOL_SOCKET, SO_TYPE), raw like rawRead: it
// never blocks.
func sockType(fd int) (int, error) {
	var typ int32
	size := uint32(4)
	_, _, e := unix.RawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_TYPE,
		uintptr(unsafe.Pointer(&typ)), uintptr(unsafe.Pointer(&size)), 0)
	if e != 0 {
		return 0, e
	}
	return int(typ), nil
}
