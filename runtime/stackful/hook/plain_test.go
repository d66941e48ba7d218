//go:build linux

package hook

import (
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestPlainOutsideCoroutines runs every blocking case where the hooks do
// not apply: each call must behave as the blocking system call, completing
// once the trigger (on a plain goroutine) lets it, and, when it runs on an
// env's goroutine, stopping the whole env meanwhile.
func TestPlainOutsideCoroutines(t *testing.T) {
	for _, where := range []string{"goroutine", "hooks-disabled", "main"} {
		for _, c := range blockCases {
			t.Run(where+"/"+c.name, func(t *testing.T) {
				e := newEnv(t)
				op, trigger := c.setup(t)
				tk := startTicker(e)
				runUntil(t, e, time.Second, func() bool { return tk.N >= 2 })
				trigDone := make(chan error, 1)
				if trigger != nil {
					go func() {
						time.Sleep(30 * time.Millisecond)
						trigDone <- trigger(nil)
					}()
				} else {
					trigDone <- nil
				}
				var opErr error
				var took time.Duration
				n0 := tk.N
				call := func(co *stackful.Co) {
					t0 := time.Now()
					opErr = op(co)
					took = time.Since(t0)
				}
				switch where {
				case "goroutine":
					done := make(chan struct{})
					go func() { call(nil); close(done) }()
					<-done
				case "hooks-disabled":
					co := e.Create(func(co *stackful.Co) {
						co.DisableHook()
						call(co)
					}, nil)
					co.Resume()
					if co.Status() != stackful.Dead {
						t.Fatal("the call waited on the loop with hooks disabled")
					}
				case "main":
					call(e.Main())
				}
				if err := <-trigDone; err != nil {
					t.Fatalf("trigger: %v", err)
				}
				if opErr != nil {
					t.Fatalf("call: %v", opErr)
				}
				if took < 25*time.Millisecond {
					t.Errorf("call returned after %v, before it could complete", took)
				}
				if where != "goroutine" && tk.N != n0 {
					t.Errorf("ticker advanced %d times: the call let the env run", tk.N-n0)
				}
				tk.Stop = true
				runUntil(t, e, time.Second, func() bool { return tk.Done })
			})
		}
	}
}
