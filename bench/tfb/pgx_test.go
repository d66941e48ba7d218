package tfb

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/jackc/pgx/v5"
)

// hammer keeps n connections sending requests to a server, each waiting
// for its answer before the next, and records when answers come.
type hammer struct {
	stop   atomic.Bool
	wg     sync.WaitGroup
	mu     sync.Mutex
	oks    []time.Time // the 200 answers, in order
	failed int         // the other answers (a 500 while the database is away)
	errs   []error     // requests without an answer (transport errors, timeouts)
}

func startHammer(addr string, n int) *hammer {
	h := &hammer{}
	paths := []string{"/db", "/queries?queries=3", "/fortunes", "/updates?queries=2"}
	for i := range n {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer c.CloseIdleConnections()
			for j := i; !h.stop.Load(); j++ {
				resp, err := c.Get("http://" + addr + paths[j%len(paths)])
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				h.mu.Lock()
				switch {
				case err != nil:
					h.errs = append(h.errs, err)
				case resp.StatusCode == 200:
					h.oks = append(h.oks, time.Now())
				default:
					h.failed++
				}
				h.mu.Unlock()
			}
		}()
	}
	return h
}

// servesAfter waits (at most 10 s) for a 200 answer received after t and
// returns how long after t it came.
func (h *hammer) servesAfter(t time.Time) (time.Duration, bool) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		h.mu.Lock()
		oks := h.oks
		h.mu.Unlock()
		for i := len(oks) - 1; i >= 0 && oks[i].After(t); i-- {
			if i == 0 || !oks[i-1].After(t) {
				return oks[i].Sub(t), true
			}
		}
	}
	return 0, false
}

func (h *hammer) end() (oks, failed int, errs []error) {
	h.stop.Store(true)
	h.wg.Wait()
	return len(h.oks), h.failed, h.errs
}

// TestPgxServerNeverBlocksItsLoop: the stock-driver server (pgxpool on
// conet conns) under load from 16 connections - from an empty pool, across
// a killed backend (pg_terminate_backend) of each of its conns, and across
// a PostgreSQL restart (pg_ctl stop -m fast, start) - never has its loop
// wait in Go's scheduler: the env's stall watchdog, at 10 ms, reports no
// coroutine blocked outside the loop. Every request is answered (a 500
// while the database is away), and the server answers 200 again within
// 1 s of each recovery. Before the fix, pgxpool's Acquire waited in a
// select on the loop for each dial (puddle's initResourceValue) and
// health ping, and the watchdog reported it at once.
func TestPgxServerNeverBlocksItsLoop(t *testing.T) {
	url := dbURL(t)
	stop, start := os.Getenv("COGEN_PG_STOP"), os.Getenv("COGEN_PG_START")
	if stop == "" || start == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("COGEN_PG_STOP and COGEN_PG_START not set; CI=true requires them")
		}
		t.Skip("COGEN_PG_STOP and COGEN_PG_START not set (source .ci/dbservers; dbservers_start)")
	}
	const app = "tfb_pgx_loop_test"
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	appURL := url + sep + "application_name=" + app

	var mu sync.Mutex
	var blocked []stackful.Stall
	others := map[string]int{}
	guardWaits := 0
	watchPgxEnv = func(env *stackful.Env) {
		env.SetStallTimeout(10 * time.Millisecond)
		env.OnStall(func(s stackful.Stall) {
			mu.Lock()
			defer mu.Unlock()
			// A bare semacquire is the runtime's own wait (a GC
			// starting while another goroutine stops the world), which
			// every goroutine pays on a loaded machine; the driver's
			// waits show as select, chan receive, sync.Mutex.Lock...
			switch {
			case !s.Blocked || s.State == "semacquire":
				others[s.State]++
			case strings.Contains(s.Stack, "cohttp.(*guard)"):
				// cohttp's blocked-loop guard holds its mutex while it
				// takes a goroutine dump, and the loop takes it around
				// each WaitHandler: issue 34's first item, the guard's
				// own, not the driver's.
				guardWaits++
			default:
				blocked = append(blocked, s)
			}
		})
	}
	defer func() { watchPgxEnv = nil }()
	// cohttp's guard reports a handler that keeps the loop past
	// Limits.SlowHandler (50 ms) on ErrorLog, with its stack.
	var guardLog reportLog
	saved := serverLimits
	serverLimits.ErrorLog = log.New(&guardLog, "", 0)
	defer func() { serverLimits = saved }()
	r, err := Serve(CohttpPgx, appURL, DefaultPool)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			r.Stop()
		}
	}()
	h := startHammer(r.Addr, 16)
	defer h.stop.Store(true)
	if d, ok := h.servesAfter(time.Now()); !ok {
		t.Fatal("no 200 answer in 10 s from a fresh server")
	} else {
		t.Logf("first 200 after %v", d)
	}
	time.Sleep(500 * time.Millisecond)

	// Kill every backend of the server's pool.
	killed, err := terminateBackends(url, app)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	if d, ok := h.servesAfter(at); !ok || d > time.Second {
		t.Errorf("after %d backends were killed: 200 again after %v (ok %v), want within 1 s", killed, d, ok)
	} else {
		t.Logf("%d backends killed: 200 again after %v", killed, d)
	}
	time.Sleep(300 * time.Millisecond)

	// Restart PostgreSQL under the load.
	if out, err := exec.Command("sh", "-c", stop).CombinedOutput(); err != nil {
		t.Fatalf("stopping PostgreSQL: %v\n%s", err, out)
	}
	time.Sleep(300 * time.Millisecond)
	if out, err := exec.Command("sh", "-c", start).CombinedOutput(); err != nil {
		t.Fatalf("starting PostgreSQL: %v\n%s", err, out)
	}
	at = time.Now()
	if d, ok := h.servesAfter(at); !ok || d > time.Second {
		t.Errorf("after a restart: 200 again after %v (ok %v), want within 1 s", d, ok)
	} else {
		t.Logf("restart: 200 again after %v", d)
	}
	time.Sleep(300 * time.Millisecond)

	oks, failed, errs := h.end()
	stopped = true
	if err := r.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	t.Logf("%d answers 200, %d others, %d requests unanswered", oks, failed, len(errs))
	for i, err := range errs {
		if i == 5 {
			t.Errorf("... %d more", len(errs)-5)
			break
		}
		t.Errorf("a request got no answer: %v", err)
	}
	for _, rep := range guardLog.all() {
		// The driver's waits are the defect; a report of another cause
		// (a GC stopping the world on a loaded machine) is the guard's
		// business and is only shown.
		if strings.Contains(rep, "jackc/") {
			t.Errorf("cohttp's guard reported the loop kept in the driver:\n%s", rep)
		} else {
			t.Logf("cohttp's guard reported:\n%s", rep)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("stalls not in Go's scheduler (computing, or the runtime's own waits): %v; on cohttp's guard's mutex: %d", others, guardWaits)
	for i, s := range blocked {
		if i == 3 {
			t.Errorf("... %d more", len(blocked)-3)
			break
		}
		t.Errorf("the loop waited in Go's scheduler:\n%s", s)
	}
}

// A reportLog keeps what a log.Logger writes, one entry per message.
type reportLog struct {
	mu   sync.Mutex
	msgs []string
}

func (l *reportLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.msgs = append(l.msgs, string(p))
	l.mu.Unlock()
	return len(p), nil
}

func (l *reportLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

// terminateBackends ends the server processes of the sessions named app
// and returns how many it ended.
func terminateBackends(url, app string) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, fmt.Errorf("terminateBackends: %w", err)
	}
	defer c.Close(ctx)
	var n int
	err = c.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&n)
	if err == nil && n == 0 {
		err = fmt.Errorf("no session named %s", app)
	}
	return n, err
}
