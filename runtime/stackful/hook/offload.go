package hook

import (
	"context"
	"net"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// hooked returns the coroutine a hooked call runs in if it is to wait on
// the loop: the calling goroutine's coroutine, when it has hooks enabled
// (libco's co_is_enable_sys_hook). nil means the call behaves plainly.
func hooked() *stackful.Co {
	co := stackful.Self()
	if co == nil || !co.HookEnabled() {
		return nil
	}
	return co
}

// Offload runs fn on a goroutine of its own and returns once fn has
// returned, re-raising its panic if it panicked. In a hooked coroutine the
// coroutine waits on the loop meanwhile, so the env's other coroutines keep
// running: this is how a call that can only block (a cgo call, a file
// system call, Go's own resolver) is made to yield. fn must not touch the
// env or its coroutines. Elsewhere fn simply runs on the calling goroutine.
func Offload(fn func()) {
	co := hooked()
	if co == nil {
		fn()
		return
	}
	l := co.Env().Loop()
	w := co.Waiter()
	done := make(chan struct{})
	var panicked any
	// finished and waiting live on the loop side: they are touched only by
	// the coroutine and by the submitted func, which the loop runs while
	// the coroutine is suspended.
	finished, waiting := false, false
	go func() {
		defer func() {
			if !completed(done) {
				panicked = recover()
				close(done)
			}
			l.Submit(func() {
				finished = true
				if waiting {
					w.Wake(loop.Ready)
				}
			})
		}()
		fn()
		close(done)
	}()
	for !finished {
		waiting = true
		w.Park(-1)
		r := co.Await()
		waiting = false
		if r == loop.LoopClosed {
			<-done // nothing will run the loop any more
			break
		}
	}
	if panicked != nil {
		panic(panicked)
	}
}

func completed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// LookupHost looks up host with Go's default resolver and returns its
// addresses: the hooked gethostbyname. In a hooked coroutine the lookup
// runs through Offload, so the coroutine yields instead of blocking its
// env's thread. (Go's resolver runs its queries on goroutines of its own
// and waits for them on channels, which no coroutine can do without
// stopping its env; hence a lookup is offloaded as a whole.)
func LookupHost(host string) (addrs []string, err error) {
	Offload(func() { addrs, err = net.DefaultResolver.LookupHost(context.Background(), host) })
	return addrs, err
}
