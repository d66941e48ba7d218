//go:build !unix && !windows

package durable

import (
	"errors"
	"os"
)

func lockFile(f *os.File) (busy bool, err error) {
	return false, errors.New("durable: no file locking on this platform")
}

func syncDir(dir string) error { return nil }
