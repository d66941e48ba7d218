// Package loop is a stub of runtime/loop for the analyzer tests.
package loop

type Cond struct{}

type PollFd struct {
	Fd      int
	Events  int16
	Revents int16
}

type Reason uint8

type Waiter struct{}
