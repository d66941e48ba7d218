//go:build unix

package cohttp

import (
	"runtime"
	"testing"

	"github.com/cogen-go/cogen/runtime/loop"
)

// TestBudgetGarbageSteadyFlow: garbage comes back two collections after
// it was dropped even though more keeps being dropped meanwhile (as under
// a steady load). Three buffers dropped one collection apart: after the
// third collection, only the last one's budget may still be charged.
//
// Before the fix, all the garbage carried the stamp of the last drop, so
// a steady flow of it kept everything charged: 3000 bytes here.
func TestBudgetGarbageSteadyFlow(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := newServer(l, -1, nil, Limits{BodyBudget: 1 << 20})
	for range 3 {
		s.bodyLeft -= 1000 // a buffer taken (Server.take), then dropped
		s.addGarbage(1000)
		runtime.GC()
	}
	if now, _ := s.BodyBuffered(); now > 1000 {
		t.Errorf("three buffers of 1000 bytes dropped one collection apart: %d bytes still charged after three collections, want at most 1000", now)
	}
}
