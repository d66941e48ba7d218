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

// TestSlowHandlerGuard: a handler that sleeps in Go for 300 ms is reported
// once on the ErrorLog, with its route and a stack showing the sleep, while
// it still runs; fast handlers are not reported.
func TestSlowHandlerGuard(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			got := make(reports, 10)
			h := func(w *ResponseWriter, r *Request) {
				if string(r.Path()) == "/block" {
					time.Sleep(300 * time.Millisecond) // the mistake the guard is for
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
			done := make(chan time.Duration, 1)
			t0 := time.Now()
			go func() {
				resp, err := http.Get("http://" + addr + "/block?x=1")
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				done <- time.Since(t0)
			}()
			var report string
			select {
			case report = <-got:
			case <-time.After(10 * time.Second):
				t.Fatal("no report of a handler that kept its loop for 300 ms")
			}
			reportedAfter := time.Since(t0)
			took := <-done
			for _, want := range []string{"handler for GET /block has kept its loop", "time.Sleep", "cohttp.(*conn).callHandler"} {
				if !strings.Contains(report, want) {
					t.Errorf("the report lacks %q:\n%s", want, report)
				}
			}
			if reportedAfter > took && took < 5*time.Second {
				t.Errorf("reported after %v, once the handler had returned (%v)", reportedAfter, took)
			}
			select {
			case r := <-got:
				t.Errorf("a second report:\n%s", r)
			case <-time.After(200 * time.Millisecond):
			}
			t.Logf("reported after %v:\n%s", reportedAfter.Round(time.Millisecond), report[:strings.Index(report, "\n")])
		})
	}
}

// blockingRoute waits through its handle, then blocks its loop in Go for
// 300 ms: the mistake the guard is for, in a WaitHandler.
//
//co:stackless
func blockingRoute(co *stackful.Co, w *ResponseWriter, r *Request) {
	co.Sleep(time.Millisecond)
	time.Sleep(300 * time.Millisecond) //co:blocking
	w.WriteString("blocked")
}

var blocking = Waiting(blockingRoute, newBlockingRouteFrame)

// TestSlowWaitHandlerGuard: a WaitHandler that blocks its loop between its
// waits is reported once, with its route and a stack showing the sleep.
func TestSlowWaitHandlerGuard(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			got := make(reports, 10)
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
				t.Fatal("no report of a WaitHandler that kept its loop for 300 ms")
			}
			for _, want := range []string{"handler for GET /block has kept its loop", "time.Sleep", "blockingRoute"} {
				if !strings.Contains(report, want) {
					t.Errorf("the report lacks %q:\n%s", want, report)
				}
			}
			select {
			case r := <-got:
				t.Errorf("a second report:\n%s", r)
			case <-time.After(500 * time.Millisecond):
			}
			t.Logf("%s", report[:strings.Index(report, "\n")])
		})
	}
}
