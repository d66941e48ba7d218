package stackful

import "sync"

// Finding the running coroutine.
//
// libco's hooked calls find their coroutine through a thread-local env
// (GetCurrThreadCo). Go has no goroutine-local storage, but here every
// coroutine runs on a goroutine of its own (iter.Pull's, or a share-stack
// carrier's while it runs that coroutine), so the identity of the calling
// goroutine names the coroutine: a registry maps goroutine identities to
// coroutines. A coroutine enters the registry when it starts, on its own
// goroutine, and leaves it when it finishes, on the same goroutine; an env's
// main coroutine is registered by NewEnvOn, on the goroutine creating the
// env, and leaves by Env.Close. [Self] looks the calling goroutine up.
//
// The identity is the address of the runtime's g (goroutine descriptor),
// read by a two-instruction assembly function on amd64 and arm64 (the same
// technique as github.com/petermattis/goid), and the goroutine id parsed
// from runtime.Stack on other architectures. The address is an opaque
// number, never dereferenced: it cannot be used to reach the g, and the
// runtime never frees g descriptors (an exited goroutine's g is kept for
// reuse), so two live goroutines never share one. A registration is removed
// before its goroutine can exit, so a reused g is never mistaken for the
// coroutine that used it before.
//
// Cost (2-core x86-64, BenchmarkSelf): reading the identity 1-2 ns; Self
// ~13 ns (one uncontended shard lock and a map lookup); registering and
// unregistering ~42 ns together in a loop, 50-100 ns of the ~600 ns of
// BenchmarkStackfulCreateRelease/default (new goroutines bring cold map
// slots), paid once per coroutine run. A share-stack carrier reuses its
// goroutine and so its registry slot.

// registryShards spreads the registry over independently locked maps so
// that envs on several cores rarely contend.
const registryShards = 64

type registryShard struct {
	mu sync.Mutex
	m  map[uintptr]*Co
	_  [48]byte // a cache line per shard
}

var registry [registryShards]registryShard

func shardOf(g uintptr) *registryShard {
	return &registry[(uint64(g)*0x9E3779B97F4A7C15)>>58]
}

// register records co as the coroutine of the calling goroutine and
// returns the goroutine's identity.
func register(co *Co) uintptr {
	g := goroutineID()
	s := shardOf(g)
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[uintptr]*Co)
	}
	s.m[g] = co
	s.mu.Unlock()
	return g
}

// unregister removes goroutine g's entry if it still names co.
func unregister(g uintptr, co *Co) {
	s := shardOf(g)
	s.mu.Lock()
	if s.m[g] == co {
		delete(s.m, g)
	}
	s.mu.Unlock()
}

// Self returns the coroutine running on the calling goroutine: the
// coroutine itself when called from a coroutine's function (at any call
// depth), the env's main coroutine when called from the goroutine that
// created an env, and nil on any other goroutine (including goroutines that
// a coroutine starts with the go statement).
//
// It is how code that receives no *Co, such as the hooked system calls and
// the net adapters, finds out whether it runs in a coroutine (libco's
// co_self and GetCurrThreadCo). The result may be used only as any *Co is:
// on the goroutine that runs its env.
func Self() *Co {
	g := goroutineID()
	s := shardOf(g)
	s.mu.Lock()
	co := s.m[g]
	s.mu.Unlock()
	return co
}
