package durable

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockFile locks f exclusively without waiting; busy reports that another
// holder has it. The lock ends when f is closed (or the process ends).
func lockFile(f *os.File) (busy bool, err error) {
	var ol windows.Overlapped
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	return errors.Is(err, windows.ERROR_LOCK_VIOLATION), err
}

// syncDir does nothing: Windows cannot fsync a directory (a rename is
// made durable by the file system's journal).
func syncDir(dir string) error { return nil }
