//go:build unix

package cohttp_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/cogen-go/cogen/cohttp"
)

// declareBodies opens n connections that each send the head of a POST
// declaring a 4 MiB body, and nothing more; they close with the test.
func declareBodies(t *testing.T, addr string, n int) {
	t.Helper()
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4194304\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// postEcho posts body to /echo on a connection of its own and returns how
// long the answer took.
func postEcho(t *testing.T, addr string, body []byte) time.Duration {
	t.Helper()
	t0 := time.Now()
	c, r := dialSend(t, addr, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n")
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write(body); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("POST of %d bytes: %v after %v", len(body), err, time.Since(t0))
	}
	got, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || err != nil || !bytes.Equal(got, body) {
		t.Fatalf("POST of %d bytes: %d, %d bytes back, %v", len(body), resp.StatusCode, len(got), err)
	}
	return time.Since(t0)
}

// TestBodyBudgetDeclaredNotSent: bodies declared and never sent hold
// none of the body budget. With 8, then 1,000, connections each declaring
// 4 MiB (the default budget is 32 MiB) and sending nothing, a 64 KiB POST
// is answered at once, not after their read timeout.
//
// Before the fix, each declared body reserved its length: 8 of them spent
// the budget, and the POST waited for their read timeout (5 s here).
func TestBodyBudgetDeclaredNotSent(t *testing.T) {
	const readTimeout = 5 * time.Second
	needFDs(t, 2*1008+50)
	body := bytes.Repeat([]byte("b"), 64<<10)
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			addr := start(t, model, testHandler, Limits{ReadTimeout: readTimeout})
			postEcho(t, addr, body) // warm
			for _, n := range []int{8, 1000} {
				declareBodies(t, addr, n)
				time.Sleep(100 * time.Millisecond) // the server has read their heads
				var took []time.Duration
				for range 3 {
					took = append(took, postEcho(t, addr, body))
				}
				t.Logf("%d connections declaring 4 MiB: 64 KiB POSTs answered in %v", n, took)
				if slices.Max(took) > readTimeout/5 {
					t.Errorf("%d connections declaring 4 MiB and sending nothing: a 64 KiB POST answered after %v", n, slices.Max(took))
				}
			}
		})
	}
}

// TestBodyBudgetUploads: more bodies than the budget holds at once, all
// sent in full, are all answered: buffers grow with the bytes received,
// and the budget's reserve lets one body at a time finish, so they never
// all wait for each other. 12 uploads of 2 MiB with a 4 MiB budget.
func TestBodyBudgetUploads(t *testing.T) {
	const n, size = 12, 2 << 20
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			addr := start(t, model, testHandler, Limits{ReadTimeout: 20 * time.Second, BodyBudget: 4 << 20, MaxBodyBytes: size})
			var wg sync.WaitGroup
			took := make([]time.Duration, n)
			for i := range n {
				wg.Go(func() {
					body := bytes.Repeat([]byte{byte('a' + i)}, size)
					took[i] = postEcho(t, addr, body)
				})
			}
			wg.Wait()
			slices.Sort(took)
			t.Logf("%d uploads of %d MiB with a 4 MiB budget: answered in %v to %v", n, size>>20, took[0].Round(time.Millisecond), took[n-1].Round(time.Millisecond))
		})
	}
}

// TestBodyBudgetStalledUploads: 100 uploads that declare 4 MiB, send
// 1 MiB and stall hold at most the budget (8 MiB here) between them, so
// the process's peak RSS grows by at most the budget plus a fixed
// overhead (per connection: its 4 KiB buffer, its coroutine; and the
// client's side, in this process), and each is closed within its read
// timeout (2 s) plus 2 s. A good client is answered meanwhile.
func TestBodyBudgetStalledUploads(t *testing.T) {
	const (
		n, declared, sent = 100, 4 << 20, 1 << 20
		budget            = 8 << 20
		overhead          = 12 << 20
		readTimeout       = 2 * time.Second
	)
	needFDs(t, 2*n+50)
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			addr := start(t, model, testHandler, Limits{ReadTimeout: readTimeout, BodyBudget: budget})
			postEcho(t, addr, []byte("warm"))
			before := rssKiB(t, "VmRSS")
			os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // VmHWM := VmRSS
			chunk := bytes.Repeat([]byte("u"), 64<<10)
			closedAfter := make([]time.Duration, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					closedAfter[i] = time.Hour
					c, err := net.Dial("tcp", addr)
					if err != nil {
						t.Error(err)
						return
					}
					defer c.Close()
					t0 := time.Now()
					c.SetDeadline(t0.Add(readTimeout + 10*time.Second))
					done := make(chan struct{})
					go func() {
						io.Copy(io.Discard, c)
						closedAfter[i] = time.Since(t0)
						close(done)
					}()
					io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(declared)+"\r\n\r\n")
					for w := 0; w < sent; w += len(chunk) {
						if _, err := c.Write(chunk); err != nil {
							break
						}
					}
					<-done
				})
			}
			var good []time.Duration
			for deadline := time.Now().Add(readTimeout); time.Now().Before(deadline); {
				good = append(good, postEcho(t, addr, []byte("good")))
				time.Sleep(50 * time.Millisecond)
			}
			wg.Wait()
			peak := rssKiB(t, "VmHWM")
			slices.Sort(closedAfter)
			slices.Sort(good)
			grew := (peak - before) << 10
			t.Logf("%d uploads (%d MiB declared, %d MiB sent, budget %d MiB): closed %v to %v after their first byte (read timeout %v); "+
				"peak RSS +%.1f MiB (%.0f KiB per upload); a good client answered %d times, worst %v",
				n, declared>>20, sent>>20, budget>>20, closedAfter[0].Round(time.Millisecond), closedAfter[n-1].Round(time.Millisecond), readTimeout,
				float64(grew)/(1<<20), float64(grew)/n/1024, len(good), good[len(good)-1].Round(time.Millisecond))
			if closedAfter[n-1] > readTimeout+2*time.Second {
				t.Errorf("a stalled upload was closed %v after its first byte; the read timeout is %v", closedAfter[n-1], readTimeout)
			}
			if grew > budget+overhead {
				t.Errorf("the peak RSS grew by %.1f MiB, more than the budget (%d MiB) plus %d MiB", float64(grew)/(1<<20), budget>>20, overhead>>20)
			}
		})
	}
}

// rssKiB returns a field of /proc/self/status in KiB, or skips the test.
func rssKiB(t *testing.T, field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb
		}
	}
	t.Skipf("no %s in /proc/self/status", field)
	return 0
}

// TestBodyBudgetBackAfterShutdown: once a server has shut down, all its
// body budget is back, the garbage its bodies left included: nothing
// waits for collections that nothing may start.
//
// Before the fix, the buffer of the body answered stayed charged after the
// shutdown (garbage waiting for two collections): about 60 KiB here.
func TestBodyBudgetBackAfterShutdown(t *testing.T) {
	body := bytes.Repeat([]byte("b"), 64<<10)
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			var s *Server
			addr, shutdown := startShutdownServer(t, model, testHandler, Limits{BodyBudget: 1 << 20}, &s)
			postEcho(t, addr, body)
			if err := shutdown(time.Second); err != nil {
				t.Fatal(err)
			}
			if now, peak := s.BodyBuffered(); now != 0 || peak == 0 {
				t.Errorf("after a 64 KiB POST and the shutdown: %d bytes of the budget still in use (peak %d), want 0", now, peak)
			}
		})
	}
}

// TestBodyBudgetSmallBehindStalled: stalled uploads that hold a quarter of
// the budget do not keep small bodies waiting, even where one largest body
// is the whole budget (MaxBodyBytes = BodyBudget, as in cmd/cosoak). Two
// uploads declare 1 MiB, send 256 KiB and stall; POSTs of 8000 and 8150
// bytes (the latter's buffer grows twice) are answered at once, not after
// the uploads' read timeout.
//
// Before the fix, the reserve (one largest body) was the whole budget, so
// every growth had to be the single finisher's; a stalled upload took that
// place and held it until its read timeout, and the POSTs waited for it
// (in cosoak, a 408 when the second stalled upload took the place next).
func TestBodyBudgetSmallBehindStalled(t *testing.T) {
	const readTimeout = 2 * time.Second
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			addr := start(t, model, testHandler, Limits{ReadTimeout: readTimeout, BodyBudget: 4 << 20, MaxBodyBytes: 4 << 20})
			for range 2 {
				c, _ := dialSend(t, addr, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
				t.Cleanup(func() { c.Close() })
				if _, err := c.Write(make([]byte, 256<<10)); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(100 * time.Millisecond) // the server has read what they sent
			var took []time.Duration
			for _, n := range []int{8000, 8150, 8000} {
				took = append(took, postEcho(t, addr, bytes.Repeat([]byte("s"), n)))
			}
			t.Logf("small POSTs beside two stalled uploads answered in %v", took)
			if slices.Max(took) > readTimeout/4 {
				t.Errorf("small POSTs beside two stalled 1 MiB uploads answered in %v, want each well within the %v read timeout", took, readTimeout)
			}
		})
	}
}
