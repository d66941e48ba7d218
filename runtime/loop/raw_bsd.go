//go:build darwin || freebsd

package loop

import "golang.org/x/sys/unix"

// rawRead and rawWrite are plain read(2) and write(2) here; raw_linux.go
// says why Linux skips the scheduler's bookkeeping.

func rawRead(fd int, p []byte) (int, error) { return unix.Read(fd, p) }

func rawWrite(fd int, p []byte) (int, error) { return unix.Write(fd, p) }
