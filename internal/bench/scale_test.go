//go:build unix

package bench

import (
	"runtime"
	"testing"

	"github.com/cogen-go/cogen/internal/echoload"
)

// TestRunScale: every scale server answers exactly the requests of a short
// run at 1 and 2 loops, counts the polls of all its loops and the load
// client's CPU time, restores
// GOMAXPROCS, and leaves no descriptor or goroutine behind.
func TestRunScale(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, kind := range []string{"echo", "http"} {
		for _, model := range ScaleModels[kind] {
			for _, loops := range []int{1, 2} {
				mode := ScaleMode(kind, model, loops)
				t.Run(mode, func(t *testing.T) {
					defer checkNoLeaks(t)()
					res, err := RunScale(mode, echoload.Config{Conns: 20, Requests: 2000})
					if err != nil {
						t.Fatal(err)
					}
					if res.Requests != 2000 || res.ServerCPU <= 0 || res.ClientCPU <= 0 || res.MachineWall <= 0 || res.MachineBusy < 0 {
						t.Fatalf("%+v", res)
					}
					if isGo := model == "goroutine" || model == "net/http"; isGo != (res.LoopPolls < 0) {
						t.Errorf("loop polls %d for %s", res.LoopPolls, model)
					}
					if got := runtime.GOMAXPROCS(0); got != procs {
						t.Errorf("GOMAXPROCS %d after the run, want %d", got, procs)
					}
				})
			}
		}
	}
	for _, bad := range []string{"echo/stackful", "echo/stackful/0", "echo/nonsense/1", "http/stackless/1x"} {
		if _, err := RunScale(bad, echoload.Config{Requests: 1}); err == nil {
			t.Errorf("RunScale(%q) accepted", bad)
		}
	}
}

func BenchmarkGroupSubmitRoundTrip(b *testing.B) { GroupSubmitRoundTrip(b) }
