package httpdiff

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/cohttp"
)

// SlowBody opens 20 connections that send a request head at once and then
// its 100-byte body one byte every 200 ms, against a read timeout of 1 s:
// each must be closed by the server at the timeout (measured from before
// the dial, so never earlier), whatever it answers.
func SlowBody(t *testing.T, start Starter) {
	const n, timeout = 20, time.Second
	addr := start(t, cohttp.Limits{ReadTimeout: timeout})
	closedAfter := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			closedAfter[i] = -1
			t0 := time.Now()
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				return
			}
			defer c.Close()
			if _, err := io.WriteString(c, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"); err != nil {
				return
			}
			done := make(chan struct{})
			go func() {
				c.SetReadDeadline(t0.Add(10 * time.Second))
				io.Copy(io.Discard, c)
				closedAfter[i] = time.Since(t0)
				close(done)
			}()
			for range 100 {
				select {
				case <-done:
					return
				case <-time.After(200 * time.Millisecond):
				}
				if _, err := c.Write([]byte{'b'}); err != nil {
					break
				}
			}
			<-done
		}()
	}
	wg.Wait()
	slices.Sort(closedAfter)
	t.Logf("%d slow bodies closed between %v and %v (read timeout %v)", n, closedAfter[0].Round(time.Millisecond), closedAfter[n-1].Round(time.Millisecond), timeout)
	if closedAfter[0] < timeout*95/100 || closedAfter[n-1] > timeout+4*time.Second {
		t.Errorf("slow bodies closed between %v and %v; want at the read timeout of %v", closedAfter[0], closedAfter[n-1], timeout)
	}
}

// StalledUploads opens 100 connections that each declare a 4 MiB body to
// POST /, send 1 MiB of it and stall, against a read timeout of 2 s and a
// body budget of 16 MiB. The server must close all of them by the timeout
// (plus slack), keep answering a well-behaved client meanwhile, and its
// process must not grow by more than 40 MiB at its peak: a server
// buffering every body holds over 100 MiB (cohttp before its budget: 104
// MiB), one within the budget at most twice the budget (buffers grow by
// doubling, and the garbage waits for the collector).
func StalledUploads(t *testing.T, start Starter) {
	const n, declared, sent, timeout = 100, 4 << 20, 1 << 20, 2 * time.Second
	addr := start(t, cohttp.Limits{ReadTimeout: timeout, BodyBudget: 16 << 20})
	ask, done := goodClient(t, addr)
	defer done()
	runtime.GC()
	before := rss("VmRSS")
	resetPeakRSS()
	chunk := bytes.Repeat([]byte("u"), 64<<10)
	closedAfter := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			closedAfter[i] = time.Hour
			t0 := time.Now()
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				return
			}
			defer c.Close()
			c.SetDeadline(t0.Add(timeout + 10*time.Second))
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
		}()
	}
	asked := 0
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); asked++ {
		if err := ask(); err != nil {
			t.Fatalf("the good client failed during the uploads: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	peak := rss("VmHWM")
	slices.Sort(closedAfter)
	t.Logf("%d stalled uploads (%d MiB declared, %d MiB sent): closed between %v and %v (read timeout %v); RSS %.1f MiB before, peak %.1f MiB (%.0f KiB per upload); good client answered %d times",
		n, declared>>20, sent>>20, closedAfter[0].Round(time.Millisecond), closedAfter[n-1].Round(time.Millisecond), timeout,
		mib(before), mib(peak), float64(peak-before)/n/1024, asked)
	if closedAfter[n-1] > timeout+5*time.Second {
		t.Errorf("stalled uploads still open %v after the dial; the read timeout is %v", closedAfter[n-1], timeout)
	}
	if before > 0 && peak > 0 && peak-before > 40<<20 {
		t.Errorf("100 stalled uploads grew the peak RSS by %.1f MiB", mib(peak-before))
	}
}

// SlowReader pipelines 100,000 GET requests on one connection and reads
// nothing, against a write timeout of 500 ms: once the socket buffers are
// full the server must give up and close the connection, so that the
// client, reading at last, finds fewer answers than requests and then the
// end of the connection.
func SlowReader(t *testing.T, start Starter) {
	const n, timeout = 100000, 500 * time.Millisecond
	addr := start(t, cohttp.Limits{WriteTimeout: timeout, IdleTimeout: 30 * time.Second})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	reqs := strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", n)
	go io.WriteString(c, reqs) // blocks once the server stops reading; ends with the connection
	// The server ends the connection once a write has been stuck for the
	// timeout; wait for that without reading (a slow server, under -race
	// on a loaded machine, may take seconds to get there), then read what
	// it had sent.
	gone := waitPeerGone(c, 30*time.Second)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReaderSize(c, 64<<10)
	answers := 0
	var rerr error
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			rerr = err
			break
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			rerr = err
			break
		}
		answers++
	}
	t.Logf("a client that did not read: %d answers of %d requests, then %v", answers, n, rerr)
	var ne net.Error
	if !gone || errors.As(rerr, &ne) && ne.Timeout() || answers >= n {
		t.Errorf("the server kept the connection of a client that did not read (%d answers of %d, then %v)", answers, n, rerr)
	}
}
