//go:build linux

package stackful

import (
	"math/rand/v2"
	"sync"
	"testing"
)

func TestSelf(t *testing.T) {
	var outside *Co
	done := make(chan struct{})
	go func() { outside = Self(); close(done) }()
	<-done
	if outside != nil {
		t.Fatalf("Self on a plain goroutine = %p, want nil", outside)
	}

	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	if Self() != e.Main() {
		t.Fatal("Self on the env's goroutine is not its main coroutine")
	}
	share := AllocShareStack(1, 0)
	var seen []*Co
	var fromGo *Co
	var cos []*Co
	for _, attr := range []*Attr{nil, {StackSize: 64 << 10}, {ShareStack: share}, {ShareStack: share}} {
		co := e.Create(func(co *Co) {
			seen = append(seen, Self())
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { fromGo = Self(); wg.Done() }()
			wg.Wait() //co:blocking for one goroutine's Self call
			co.Yield()
			seen = append(seen, deeper(3))
		}, attr)
		cos = append(cos, co)
		co.Resume()
		if fromGo != nil {
			t.Errorf("Self on a goroutine started by a coroutine = %p, want nil", fromGo)
		}
	}
	for _, co := range cos {
		co.Resume()
	}
	if len(seen) != 2*len(cos) {
		t.Fatalf("seen %d, want %d", len(seen), 2*len(cos))
	}
	for i, co := range cos {
		if seen[i] != co || seen[len(cos)+i] != co {
			t.Errorf("coroutine %d: Self = %p then %p, want %p", i, seen[i], seen[len(cos)+i], co)
		}
	}
	// A carrier reused by the next coroutine of its share stack names that
	// coroutine.
	for i := range 3 {
		var got *Co
		co := e.Create(func(co *Co) { got = Self() }, &Attr{ShareStack: share})
		co.Resume()
		if got != co {
			t.Errorf("share-stack coroutine %d: Self = %p, want %p", i, got, co)
		}
	}
	if share.Stats().Reused == 0 {
		t.Error("the share stack's carrier was not reused")
	}
	if n := registered(); n != 1 {
		t.Errorf("%d registrations after every coroutine ended, want 1 (main)", n)
	}

	// A coroutine unwound by Close leaves the registry too, and so does main.
	e.Create(func(co *Co) { co.Yield() }, nil).Resume()
	if n := registered(); n != 2 {
		t.Errorf("%d registrations with a suspended coroutine, want 2", n)
	}
	e.Close()
	if Self() != nil {
		t.Error("Self after Close is not nil")
	}
	if n := registered(); n != 0 {
		t.Errorf("%d registrations after Close, want 0", n)
	}
}

//go:noinline
func deeper(n int) *Co {
	if n == 0 {
		return Self()
	}
	return deeper(n - 1)
}

func registered() int {
	n := 0
	for i := range registry {
		s := &registry[i]
		s.mu.Lock()
		n += s.n
		s.mu.Unlock()
	}
	return n
}

// BenchmarkSelf is the lookup a hooked call makes to find its coroutine.
func BenchmarkSelf(b *testing.B) {
	e, err := NewEnv()
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.Run("goroutineID", func(b *testing.B) {
		var sum uintptr
		for range b.N {
			sum += goroutineID()
		}
		if sum == 0 {
			b.Fatal("zero id")
		}
	})
	b.Run("Self", func(b *testing.B) {
		// Sub-benchmarks run on goroutines of their own: register this one.
		g := register(e.Main())
		defer unregister(g, e.Main())
		for range b.N {
			if Self() == nil {
				b.Fatal("Self is nil on the env's goroutine")
			}
		}
	})
	b.Run("register+unregister", func(b *testing.B) {
		co := e.Main()
		for range b.N {
			g := register(co)
			unregister(g, co)
		}
	})
}

// TestRegistryShardModel checks the registry's hash table against a Go map
// under random puts and removes: keys that collide, probe runs that wrap
// around the end, growth, and deletion by backward shift.
func TestRegistryShardModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cos := make([]Co, 8)
	for round := range 20 {
		var s registryShard
		model := map[uintptr]*Co{}
		keys := make([]uintptr, 40+round*10) // few distinct keys: many hits on live entries
		for i := range keys {
			keys[i] = uintptr(rng.Uint64()|1) << 3
		}
		for step := range 5000 {
			g := keys[rng.IntN(len(keys))]
			co := &cos[rng.IntN(len(cos))]
			if rng.IntN(3) == 0 {
				if i := s.find(g); i >= 0 && s.slots[i].co == co {
					s.remove(i)
				}
				if model[g] == co {
					delete(model, g)
				}
			} else {
				s.put(g, co)
				model[g] = co
			}
			if s.n != len(model) {
				t.Fatalf("round %d step %d: %d entries, want %d", round, step, s.n, len(model))
			}
			for _, k := range keys {
				if got := s.get(k); got != model[k] {
					t.Fatalf("round %d step %d: key %#x: %p, want %p", round, step, k, got, model[k])
				}
			}
		}
	}
}
