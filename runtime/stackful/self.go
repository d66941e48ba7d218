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
// Cost: reading the identity is a load; Self is one uncontended shard lock
// and a probe of an open-addressing table; registering and unregistering
// are paid once per coroutine run (BenchmarkSelf; figures in
// docs/benchmarks.md).
// run. A share-stack carrier reuses its goroutine and so its registry slot.

// registryShards spreads the registry over independently locked tables so
// that envs on several cores rarely contend.
const registryShards = 64

// A registryShard is an open-addressing hash table (linear probing, at most
// half full, deletion by backward shift, so there are no tombstones) from
// goroutine identity to coroutine, under a lock: cheaper than a Go map for
// the insert and delete every coroutine run makes on a fresh goroutine.
type registryShard struct {
	mu    sync.Mutex
	slots []regSlot // len a power of two; g == 0: empty
	n     int
	_     [24]byte // a cache line per shard
}

type regSlot struct {
	g  uintptr
	co *Co
}

var registry [registryShards]registryShard

func hashG(g uintptr) uint64 { return uint64(g) * 0x9E3779B97F4A7C15 }

func shardOf(g uintptr) *registryShard {
	return &registry[hashG(g)>>58]
}

// home is g's first probe position in s.slots.
func (s *registryShard) home(g uintptr) int {
	return int(hashG(g)>>20) & (len(s.slots) - 1)
}

// find returns g's slot index, or -1.
func (s *registryShard) find(g uintptr) int {
	if len(s.slots) == 0 {
		return -1
	}
	mask := len(s.slots) - 1
	for i := s.home(g); ; i = (i + 1) & mask {
		switch s.slots[i].g {
		case g:
			return i
		case 0:
			return -1
		}
	}
}

// put maps g to co, replacing any entry of g.
func (s *registryShard) put(g uintptr, co *Co) {
	if 2*(s.n+1) > len(s.slots) {
		old := s.slots
		s.slots = make([]regSlot, max(16, 2*len(old)))
		s.n = 0
		for _, e := range old {
			if e.g != 0 {
				s.put(e.g, e.co)
			}
		}
	}
	mask := len(s.slots) - 1
	i := s.home(g)
	for s.slots[i].g != 0 && s.slots[i].g != g {
		i = (i + 1) & mask
	}
	if s.slots[i].g == 0 {
		s.n++
	}
	s.slots[i] = regSlot{g, co}
}

// remove empties slot i and shifts back the entries of its probe run that
// would no longer be found.
func (s *registryShard) remove(i int) {
	mask := len(s.slots) - 1
	for j := (i + 1) & mask; s.slots[j].g != 0; j = (j + 1) & mask {
		h := s.home(s.slots[j].g)
		// The entry at j may move to i if its home is not in (i, j],
		// cyclically.
		if (i <= j && (h <= i || h > j)) || (i > j && h <= i && h > j) {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = regSlot{}
	s.n--
}

// get returns g's coroutine, or nil.
func (s *registryShard) get(g uintptr) *Co {
	if i := s.find(g); i >= 0 {
		return s.slots[i].co
	}
	return nil
}

// register records co as the coroutine of the calling goroutine and
// returns the goroutine's identity.
func register(co *Co) uintptr {
	g := goroutineID()
	s := shardOf(g)
	s.mu.Lock()
	s.put(g, co)
	s.mu.Unlock()
	return g
}

// unregister removes goroutine g's entry if it still names co.
func unregister(g uintptr, co *Co) {
	s := shardOf(g)
	s.mu.Lock()
	if i := s.find(g); i >= 0 && s.slots[i].co == co {
		s.remove(i)
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
	co := s.get(g)
	s.mu.Unlock()
	return co
}
