package hook

import (
	"context"
	"net"

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

// Offload runs fn on a worker goroutine of the env's offload pool
// ([stackful.Co.Offload]) and returns once fn has returned, re-raising its
// panic if it panicked. In a hooked coroutine the coroutine waits on the
// loop meanwhile, so the env's other coroutines keep running: this is how
// a call that can only block (a cgo call, a file system call, Go's own
// resolver, a library that holds a Go mutex across I/O) is made to yield.
// fn must not touch the env or its coroutines. Elsewhere fn simply runs on
// the calling goroutine.
func Offload(fn func()) {
	co := hooked()
	if co == nil {
		fn()
		return
	}
	co.Offload(fn)
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
