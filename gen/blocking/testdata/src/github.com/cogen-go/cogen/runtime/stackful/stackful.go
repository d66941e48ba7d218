// Package stackful is a stub of runtime/stackful for the analyzer tests:
// the analyzer recognises the handle by its package path and type name.
package stackful

import (
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

type Cond = loop.Cond

type Co struct{}

func (co *Co) Read(fd int, p []byte) (int, error)                         { return 0, nil }
func (co *Co) Write(fd int, p []byte) (int, error)                        { return 0, nil }
func (co *Co) Accept(fd int) (int, unix.Sockaddr, error)                  { return 0, nil, nil }
func (co *Co) Connect(fd int, sa unix.Sockaddr) error                     { return nil }
func (co *Co) Poll(fds []loop.PollFd, timeout time.Duration) (int, error) { return 0, nil }
func (co *Co) Sleep(d time.Duration)                                      {}
func (co *Co) Gosched()                                                   {}
func (co *Co) Wait(c *Cond, timeout time.Duration) bool                   { return false }
func (co *Co) Yield()                                                     {}
func (co *Co) Resume()                                                    {}
func (co *Co) Close(fd int) error                                         { return nil }

// The handle protocol.
func (co *Co) Waiter() *loop.Waiter                     { return nil }
func (co *Co) Resumed() loop.Reason                     { return 0 }
func (co *Co) Suspend() (loop.Reason, bool)             { return 0, true }
func (co *Co) OpSlot() *any                             { return nil }
func (co *Co) Begin() (loop.Reason, *loop.Waiter, *any) { return 0, nil, nil }
func (co *Co) Offload(fn func())                        {}
