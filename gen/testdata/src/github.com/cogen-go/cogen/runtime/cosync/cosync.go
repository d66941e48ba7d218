// Package cosync is a stub of runtime/cosync for the analyzer tests: the
// analyzer recognises a Handle parameter by the protocol's method names.
package cosync

import "github.com/cogen-go/cogen/runtime/loop"

type Handle interface {
	Waiter() *loop.Waiter
	Resumed() loop.Reason
	Suspend() (loop.Reason, bool)
	OpSlot() *any
	Begin() (loop.Reason, *loop.Waiter, *any)
}

// Partial has only some of the protocol's methods: not a handle.
type Partial interface {
	Waiter() *loop.Waiter
}

type Chan[T any] struct{}

func (c *Chan[T]) Recv(h Handle) (T, bool)  { var v T; return v, false }
func (c *Chan[T]) Send(h Handle, v T) error { return nil }
func (c *Chan[T]) Peek(p Partial) T         { var v T; return v }
