//go:build linux

package conet

import (
	"runtime"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// A hooked coroutine's Write, Read and SyscallConn Read of a conn allocate
// nothing once the conn exists (go-redis does all three per command): the
// offload fallbacks' closures, and the variables they capture, are made only
// on that path, and a RawConn func is adapted without a closure.
func TestCoroutineIOAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	e := newEnv(t)
	client, server := pair(t, e)
	rc, err := server.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 200
	var allocs uint64
	done := false
	spawn(e, func(co *stackful.Co) {
		defer func() { done = true }()
		b := make([]byte, 1)
		peek := func(fd uintptr) bool { return true }
		round := func() {
			if _, err := client.Write(b); err != nil {
				t.Error(err)
			}
			if _, err := server.Read(b); err != nil {
				t.Error(err)
			}
			if err := rc.Read(peek); err != nil {
				t.Error(err)
			}
		}
		for range 10 {
			round()
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for range rounds {
			round()
		}
		runtime.ReadMemStats(&m1)
		allocs = m1.Mallocs - m0.Mallocs
	})
	runUntil(t, e, 10*time.Second, func() bool { return done })
	if per := float64(allocs) / rounds; per >= 0.5 {
		t.Fatalf("%.2f allocations per Write+Read+RawConn.Read, want 0", per)
	}
}
