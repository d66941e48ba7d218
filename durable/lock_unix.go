//go:build unix

package durable

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile locks f exclusively without waiting; busy reports that another
// holder has it. The lock ends when f is closed (or the process ends).
func lockFile(f *os.File) (busy bool, err error) {
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	return errors.Is(err, unix.EWOULDBLOCK), err
}

// syncDir fsyncs a directory, so that the renames in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
