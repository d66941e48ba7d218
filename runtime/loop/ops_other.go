//go:build !linux && !darwin && !freebsd

package loop

import "time"

// On systems without a poller no loop can be created, so these are never
// reached with a valid loop; they exist so dependent packages compile.

func (l *Loop) TryRead(w *Waiter, fd int, p []byte, timeout time.Duration) (int, bool, error) {
	return 0, false, ErrNotSupported
}

func (l *Loop) TryReadStream(w *Waiter, fd int, p []byte, timeout time.Duration) (int, bool, error) {
	return 0, false, ErrNotSupported
}

func (l *Loop) TryWrite(w *Waiter, fd int, p []byte, timeout time.Duration) (int, bool, error) {
	return 0, false, ErrNotSupported
}

func (l *Loop) TryAccept(w *Waiter, fd int, timeout time.Duration) (int, Sockaddr, bool, error) {
	return -1, nil, false, ErrNotSupported
}

func (l *Loop) TryConnect(w *Waiter, fd int, sa Sockaddr, timeout time.Duration) (bool, error) {
	return false, ErrNotSupported
}

func (l *Loop) TryPoll(w *Waiter, ps *PollState, fds []PollFd, timeout time.Duration) (int, bool, error) {
	return 0, false, ErrNotSupported
}

func (l *Loop) EndPoll(w *Waiter, ps *PollState) {}

// The completion-mode API, for dependent packages: there is no completion
// I/O here, so RegisterCompletion and RegisterAccept are Register.

func (l *Loop) RegisterCompletion(fd int) (*FD, error) { return l.Register(fd) }

func (l *Loop) RegisterAccept(fd int) (*FD, error) { return l.Register(fd) }

func (l *Loop) Completion() bool { return false }

func (f *FD) InCompletion() bool { return false }

func (l *Loop) ShutdownWrite(fd int) error { return ErrNotSupported }
