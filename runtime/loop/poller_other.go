//go:build !linux

package loop

func newPoller() (poller, error) { return nil, ErrNotSupported }

func isStream(fd int) bool { return false }
