//go:build unix

package cohttp_test

import (
	"io"
	"log"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// reports is an ErrorLog's writer that hands each report to the test.
type reports chan string

func (r reports) Write(p []byte) (int, error) {
	r <- string(p)
	return len(p), nil
}

// TestSlowHandlerGuard: a handler that blocks in Go (a channel receive) is
// reported once on the ErrorLog, with its route and a stack showing the
// receive, while it still runs; fast handlers are not reported.
//
// The handler blocks until the report has arrived, so the guard's sample
// of its stack is taken while it blocks however late the guard's goroutine
// runs. With a fixed 300 ms sleep, a guard late by more than the sleep
// samples the handler after it returned: the report lacks the sleep or
// comes after the handler ended (seen with TestSlowWaitHandlerGuard under
// -count=20 beside two CPU hogs at load 15: reported "for 1.514s", with the
// loop in the handler's epilogue).
func TestSlowHandlerGuard(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			got := make(reports, 10)
			release := make(chan struct{})
			defer close(release) // also when the test fails: the server can stop
			h := func(w *ResponseWriter, r *Request) {
				if string(r.Path()) == "/block" {
					<-release // the mistake the guard is for
				}
				w.WriteString("ok")
			}
			addr := start(t, model, h, Limits{SlowHandler: 50 * time.Millisecond, ErrorLog: log.New(got, "", 0)})
			for range 20 {
				resp, err := http.Get("http://" + addr + "/fast")
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			t0 := time.Now()
			go func() {
				resp, err := http.Get("http://" + addr + "/block?x=1")
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			var report string
			select {
			case report = <-got:
			case <-time.After(10 * time.Second):
				t.Fatal("no report of a handler that has kept its loop for 10 s")
			}
			reportedAfter := time.Since(t0)
			for _, want := range []string{"handler for GET /block has kept its loop", "[chan receive", "cohttp.(*conn).callHandler"} {
				if !strings.Contains(report, want) {
					t.Errorf("the report lacks %q:\n%s", want, report)
				}
			}
			release <- struct{}{}
			select {
			case r := <-got:
				t.Errorf("a second report:\n%s", r)
			case <-time.After(200 * time.Millisecond):
			}
			t.Logf("reported after %v:\n%s", reportedAfter.Round(time.Millisecond), report[:strings.Index(report, "\n")])
		})
	}
}

// blockingRoute waits through its handle, then blocks its loop in Go (a
// receive from blockingRelease, which the test sends on once the guard has
// reported): the mistake the guard is for, in a WaitHandler.
//
//co:stackless
func blockingRoute(co *stackful.Co, w *ResponseWriter, r *Request) {
	co.Sleep(time.Millisecond)
	<-blockingRelease //co:blocking
	w.WriteString("blocked")
}

// blockingRelease ends blockingRoute's block; each test that routes to it
// makes a new one.
var blockingRelease chan struct{}

var blocking = Waiting(blockingRoute, newBlockingRouteFrame)

// TestSlowWaitHandlerGuard: a WaitHandler that blocks its loop between its
// waits is reported once, with its route and a stack showing the blocking
// receive (it blocks until the report has arrived: see
// TestSlowHandlerGuard; with a 300 ms sleep, a late guard sampled the loop
// after the sleep, in the handler's epilogue).
func TestSlowWaitHandlerGuard(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			got := make(reports, 10)
			blockingRelease = make(chan struct{})
			defer close(blockingRelease) // also when the test fails: the server can stop
			addr := start(t, model, func(w *ResponseWriter, r *Request) {
				if string(r.Path()) == "/block" {
					w.Wait(blocking)
					return
				}
				w.Wait(slow) // waits without blocking: never reported
			}, Limits{SlowHandler: 50 * time.Millisecond, ErrorLog: log.New(got, "", 0)})
			for range 5 {
				resp, err := http.Get("http://" + addr + "/slow?20ms")
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			select {
			case r := <-got:
				t.Fatalf("a WaitHandler that waits through its handle was reported:\n%s", r)
			default:
			}
			go func() {
				if resp, err := http.Get("http://" + addr + "/block"); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			var report string
			select {
			case report = <-got:
			case <-time.After(10 * time.Second):
				t.Fatal("no report of a WaitHandler that has kept its loop for 10 s")
			}
			for _, want := range []string{"handler for GET /block has kept its loop", "[chan receive", "blockingRoute"} {
				if !strings.Contains(report, want) {
					t.Errorf("the report lacks %q:\n%s", want, report)
				}
			}
			blockingRelease <- struct{}{}
			select {
			case r := <-got:
				t.Errorf("a second report:\n%s", r)
			case <-time.After(500 * time.Millisecond):
			}
			t.Logf("%s", report[:strings.Index(report, "\n")])
		})
	}
}

// spinningRoute waits through its handle, then computes on its loop for
// 1.5 s without waiting: a WaitHandler that keeps its loop running.
//
//co:stackless
func spinningRoute(co *stackful.Co, w *ResponseWriter, r *Request) {
	co.Sleep(time.Millisecond)
	spin(1500 * time.Millisecond)
	w.WriteString("spun")
}

// spin computes for d.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

var spinning = Waiting(spinningRoute, newSpinningRouteFrame)

// TestComputingWaitHandlerGuard: a WaitHandler computing between its waits
// (its goroutine running, not blocked) is reported once, after the loop
// has been held for a second (before, it might be a loop whose thread the
// machine descheduled), with its route and stack.
func TestComputingWaitHandlerGuard(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			got := make(reports, 10)
			addr := start(t, model, spinning.Handler(), Limits{SlowHandler: 50 * time.Millisecond, ErrorLog: log.New(got, "", 0)})
			t0 := time.Now()
			resp, err := http.Get("http://" + addr + "/spin")
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			took := time.Since(t0)
			var report string
			select {
			case report = <-got:
			case <-time.After(5 * time.Second):
				t.Fatalf("no report of a WaitHandler that computed on its loop for 1.5 s (answered in %v)", took)
			}
			for _, want := range []string{"handler for GET /spin has kept its loop", "spin"} {
				if !strings.Contains(report, want) {
					t.Errorf("the report lacks %q:\n%s", want, report)
				}
			}
			select {
			case r := <-got:
				t.Errorf("a second report:\n%s", r)
			case <-time.After(200 * time.Millisecond):
			}
			t.Logf("%s", report[:strings.Index(report, "\n")])
		})
	}
}
