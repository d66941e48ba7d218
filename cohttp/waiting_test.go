//go:build unix

package cohttp_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// slowRoute is the waiting route of the tests: it sleeps for the duration
// its query gives (Go syntax, "1s"), then answers with the path.
//
//co:stackless
func slowRoute(co *stackful.Co, w *ResponseWriter, r *Request) {
	_, q, _ := strings.Cut(string(r.URI()), "?")
	d, _ := time.ParseDuration(q)
	co.Sleep(d)
	if string(r.Path()) == "/panic" {
		panic("slow handler panic")
	}
	w.AddHeader("X-Waited", q)
	w.WriteString("waited " + string(r.Path()))
}

var slow = Waiting(slowRoute, newSlowRouteFrame)

// waitingRoutes hands /slow... and /panic to slow and answers the rest
// itself, as testHandler does.
func waitingRoutes(w *ResponseWriter, r *Request) {
	p := string(r.Path())
	if strings.HasPrefix(p, "/slow") || p == "/panic" {
		w.AddHeader("X-Router", "1") // what the router wrote stays
		w.Wait(slow)
		return
	}
	testHandler(w, r)
}

// TestWaitHandler: five connections whose handler sleeps 1 s each are
// answered together, about 1 s later (one after another would take 5 s),
// and a plain request on another connection is answered while they wait.
func TestWaitHandler(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			addr := start(t, model, waitingRoutes, Limits{})
			const n = 5
			t0 := time.Now()
			var mu sync.Mutex
			var answered []time.Duration
			var wg sync.WaitGroup
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, r := dialSend(t, addr, "GET /slow?1s HTTP/1.1\r\nHost: x\r\n\r\n")
					defer c.Close()
					resp, err := http.ReadResponse(r, nil)
					if err != nil {
						t.Error(err)
						return
					}
					body, _ := io.ReadAll(resp.Body)
					if resp.StatusCode != 200 || string(body) != "waited /slow" || resp.Header.Get("X-Waited") != "1s" || resp.Header.Get("X-Router") != "1" {
						t.Errorf("slow request: %d %q %v", resp.StatusCode, body, resp.Header)
					}
					mu.Lock()
					answered = append(answered, time.Since(t0))
					mu.Unlock()
				}()
			}
			time.Sleep(100 * time.Millisecond) // the slow requests are in their handlers
			c, r := dialSend(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			defer c.Close()
			if resp, err := http.ReadResponse(r, nil); err != nil || resp.StatusCode != 200 {
				t.Fatalf("plain request during the waits: %v", err)
			}
			mu.Lock()
			early := len(answered)
			mu.Unlock()
			wg.Wait()
			if early > 0 {
				t.Errorf("%d slow requests were answered before the plain one", early)
			}
			last := answered[len(answered)-1]
			t.Logf("%d requests waiting 1 s each: answered after %v", n, last.Round(time.Millisecond))
			if len(answered) != n || last < time.Second || last > 3*time.Second {
				t.Errorf("%d answers, the last after %v; want %d after about 1 s", len(answered), last, n)
			}
		})
	}
}

// TestWaitHandlerPipelined: answers to pipelined requests keep their order
// whichever of them wait; a panic in a WaitHandler is a 500 that closes the
// connection, as in a plain handler.
func TestWaitHandlerPipelined(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			addr := start(t, model, waitingRoutes, Limits{})
			get := func(target string) string { return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n" }
			c, r := dialSend(t, addr, get("/slow1?50ms")+get("/")+get("/slow2?1ms")+get("/slow3?0s")+"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"+get("/panic?10ms")+get("/"))
			defer c.Close()
			for _, want := range []struct {
				status int
				body   string
			}{{200, "waited /slow1"}, {200, "Hello, World!"}, {200, "waited /slow2"}, {200, "waited /slow3"}, {200, "hi"}, {500, ""}} {
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != want.status || string(body) != want.body {
					t.Errorf("%d %q, want %d %q", resp.StatusCode, body, want.status, want.body)
				}
				if want.status == 500 && !resp.Close {
					t.Error("the 500 of a panic does not close the connection")
				}
			}
			if rest, err := io.ReadAll(r); err != nil || len(rest) > 0 {
				t.Errorf("after the panic's 500: %q, %v; want the connection closed", rest, err)
			}
		})
	}
}

// TestWaitHandlerShutdown: a graceful shutdown lets a WaitHandler in
// flight finish; its answer closes the connection, and the shutdown
// returns once it is out.
func TestWaitHandlerShutdown(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			addr, shutdown := startShutdown(t, model, waitingRoutes, Limits{})
			c, r := dialSend(t, addr, "GET /slow?500ms HTTP/1.1\r\nHost: x\r\n\r\n")
			defer c.Close()
			time.Sleep(100 * time.Millisecond) // the handler is waiting
			done := make(chan error, 1)
			go func() { done <- shutdown(5 * time.Second) }()
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || string(body) != "waited /slow" || !resp.Close {
				t.Errorf("request in flight: %d %q Close=%v", resp.StatusCode, body, resp.Close)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Error(err)
				}
			case <-time.After(4 * time.Second):
				t.Fatal("shutdown did not return after the waiting handler's answer")
			}
		})
	}
}
