package echoload

import (
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/wrk"
)

// TestWrk: a run with Config.Wrk loads net/http with wrk on the configured
// connections (wrk 4.1 opened 7 for 6 here: one more is allowed)
// and path for the duration, and reports wrk's count (no more
// than the server answered), its report and the server's CPU; a run that
// is not HTTP, or counts requests, is refused.
func TestWrk(t *testing.T) {
	if _, err := Start(Config{Addr: "127.0.0.1:1", Wrk: true}); err == nil {
		t.Error("an echo run with wrk started")
	}
	if _, err := Start(Config{Addr: "127.0.0.1:1", Wrk: true, HTTP: true, Requests: 10}); err == nil {
		t.Error("a run of a request count with wrk started")
	}
	if !wrk.Installed() {
		if os.Getenv("CI") == "true" {
			t.Fatal("wrk is not installed; .ci/run installs it")
		}
		t.Skip("wrk is not installed (Debian: apt-get install wrk)")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var hits, conns atomic.Int64
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/hello" {
				http.NotFound(w, r)
				return
			}
			hits.Add(1)
			w.Write([]byte("Hello, World!"))
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		},
	}
	go srv.Serve(ln)
	defer srv.Close()
	ld, err := Start(Config{Addr: ln.Addr().String(), Conns: 6, Duration: time.Second, HTTP: true, Path: "/hello", Wrk: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ld.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Wrk == nil || res.Requests == 0 || res.Requests != res.Wrk.Requests || hits.Load() < res.Requests ||
		conns.Load() < 6 || conns.Load() > 7 || res.ServerCPU <= 0 || res.Elapsed < time.Second {
		t.Fatalf("result %+v (wrk %+v); server saw %d requests on %d connections", res, res.Wrk, hits.Load(), conns.Load())
	}
	t.Log(res)
}
