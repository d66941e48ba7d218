//go:build unix

package cohttp_test

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/cogen-go/cogen/cohttp"
	"golang.org/x/sys/unix"
)

// needFDs makes sure the process may open n more descriptors, raising its
// soft limit up to the hard one, or skips the test saying why.
func needFDs(t *testing.T, n int) {
	t.Helper()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("needs %d descriptors and cannot read the limit: %v", n, err)
	}
	want := uint64(n) + 256 // the test binary's own, the loop's, net/http's
	if lim.Cur >= want {
		return
	}
	if lim.Max < want {
		t.Skipf("needs %d descriptors; the hard limit (ulimit -Hn) is %d", want, lim.Max)
	}
	old := lim
	lim.Cur = want
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("needs %d descriptors; raising the soft limit from %d failed: %v", want, old.Cur, err)
	}
	t.Cleanup(func() { unix.Setrlimit(unix.RLIMIT_NOFILE, &old) })
}

// reportLog collects what the server logs on its ErrorLog, never blocking
// it.
type reportLog struct {
	mu   sync.Mutex
	logs []string
}

func (r *reportLog) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.logs = append(r.logs, string(p))
	r.mu.Unlock()
	return len(p), nil
}

func (r *reportLog) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.logs)
}

// TestGuardBurst: the guard neither freezes nor slows a loop full of
// WaitHandlers, and reports nothing for them. 3,000 keep-alive connections
// each ask for a WaitHandler that sleeps 2 s on one loop, three times, each
// burst after an idle gap longer than the guard's parking delay: every
// answer comes within 2 s plus a margin of its request, a GET / on another
// connection sent during each burst is answered well within a second, and
// the guard reports nothing (the WaitHandlers wait through their handles,
// and the first handler after each gap, a plain one sleeping 30 ms, stays
// under the threshold).
//
// Before the fix, the stackful loop waited on the guard's mutex while the
// guard scanned a goroutine dump once per waiting handler, for seconds:
// answers came late or never, the stall watchdog reported the loop's
// coroutines blocked in the guard's sync.Mutex.Lock.
func TestGuardBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("3,000 connections and 12 s per model")
	}
	n := 3000
	if raceEnabled {
		n = 500 // the race detector's limit of 8,128 goroutines, and its slowness
	}
	for _, model := range models {
		t.Run(model, func(t *testing.T) { guardBursts(t, model, n, 2*time.Second) })
	}
}

// TestGuardIdleGap: handlers after an idle gap longer than the guard's
// parking delay are not reported (three times): a Handler sleeping 30 ms
// (under the 50 ms threshold), then a burst of 20 WaitHandlers. It is
// TestGuardBurst's short form, for go test -short.
//
// Before the fix, the guard's first tick after parking carried the time it
// had been due, before the gap: the first handler after the gap still
// running at the next tick was reported as having kept the loop for the
// whole gap.
func TestGuardIdleGap(t *testing.T) {
	if !testing.Short() {
		t.Skip("TestGuardBurst runs the same cycles with 3,000 connections")
	}
	for _, model := range models {
		t.Run(model, func(t *testing.T) { guardBursts(t, model, 20, 300*time.Millisecond) })
	}
}

// guardBursts runs three cycles of an idle gap, then n keep-alive
// connections asking at once for a WaitHandler that sleeps for sleep,
// with a GET / on another connection a quarter of the way through: it
// checks the times of the answers, and that the guard reported nothing.
func guardBursts(t *testing.T, model string, n int, sleep time.Duration) {
	const (
		margin = 1500 * time.Millisecond // n answers on a loaded 2-core machine
		quick  = 800 * time.Millisecond  // GET / during the burst
		idle   = 1500 * time.Millisecond // the guard parks after 1 s without a handler
		// A handler sleeping nap, under the threshold, is the first after
		// each gap.
		threshold = 50 * time.Millisecond
		nap       = 30 * time.Millisecond
	)
	needFDs(t, 2*n+50)
	logs := &reportLog{}
	addr := start(t, model, func(w *ResponseWriter, r *Request) {
		if string(r.Path()) == "/nap" {
			time.Sleep(nap) // under the threshold: not reported
		}
		waitingRoutes(w, r)
	}, Limits{SlowHandler: threshold, ErrorLog: log.New(logs, "", 0)})
	conns := make([]net.Conn, n)
	readers := make([]*bufio.Reader, n)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		defer c.Close()
		conns[i], readers[i] = c, bufio.NewReader(c)
	}
	plain, plainR := dialSend(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	defer plain.Close()
	get := func() time.Duration {
		t0 := time.Now()
		resp, err := http.ReadResponse(plainR, nil)
		if err != nil {
			t.Fatalf("GET /: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(t0)
	}
	get() // the guard has started
	req := "GET /slow?" + sleep.String() + " HTTP/1.1\r\nHost: x\r\n\r\n"
	for cycle := range 3 {
		time.Sleep(idle)
		// The first handler after the gap wakes the guard, and runs for
		// more than a tick.
		io.WriteString(plain, "GET /nap HTTP/1.1\r\nHost: x\r\n\r\n")
		get()
		var wg sync.WaitGroup
		took := make([]time.Duration, n)
		t0 := time.Now()
		for i, c := range conns {
			wg.Go(func() {
				c.SetDeadline(time.Now().Add(sleep + 10*time.Second))
				sent := time.Now()
				if _, err := io.WriteString(c, req); err != nil {
					t.Errorf("cycle %d: request %d: %v", cycle, i, err)
					took[i] = -1
					return
				}
				resp, err := http.ReadResponse(readers[i], nil)
				if err != nil {
					t.Errorf("cycle %d: answer %d: %v", cycle, i, err)
					took[i] = -1
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				took[i] = time.Since(sent)
			})
		}
		time.Sleep(sleep / 4) // the WaitHandlers sleep
		plain.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(plain, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		getTook := get()
		wg.Wait()
		all := time.Since(t0)
		slices.Sort(took)
		worst := took[n-1]
		t.Logf("cycle %d: %d answers in %v (median %v, worst %v from its request), GET / in %v",
			cycle, n, all.Round(time.Millisecond), took[n/2].Round(time.Millisecond), worst.Round(time.Millisecond), getTook.Round(time.Millisecond))
		if took[0] < 0 {
			t.Fatalf("cycle %d: requests failed", cycle)
		}
		if worst > sleep+margin {
			t.Errorf("cycle %d: an answer came %v after its request, want at most %v", cycle, worst, sleep+margin)
		}
		if getTook > quick {
			t.Errorf("cycle %d: GET / during the burst answered after %v, want at most %v", cycle, getTook, quick)
		}
	}
	if r := logs.all(); len(r) > 0 {
		t.Errorf("%d reports of WaitHandlers that wait through their handles; the first:\n%s", len(r), firstLines(r[0], 12))
	}
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
