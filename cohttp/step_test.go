//go:build linux

package cohttp

import (
	"bytes"
	"testing"

	"github.com/cogen-go/cogen/runtime/loop"
)

// benchConn returns a connection of a server with handler h, not attached
// to any socket: step runs on what the test puts in its buffer.
func benchConn(tb testing.TB, h Handler) *conn {
	l, err := loop.New()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	s := newServer(l, -1, h, Limits{})
	return newConn(s, -1)
}

func feed(c *conn, req string) {
	c.room()
	c.got(copy(c.buf[c.end:], req), nil)
}

func hello(w *ResponseWriter, r *Request) {
	w.AddHeader("Content-Type", "text/plain; charset=utf-8")
	w.WriteString("Hello, World!")
}

// TestStepNoAllocs: a keep-alive request costs no allocation once the
// connection is warm.
func TestStepNoAllocs(t *testing.T) {
	c := benchConn(t, hello)
	const req = "GET /hello/world?x=1 HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n"
	allocs := testing.AllocsPerRun(1000, func() {
		feed(c, req)
		if act := c.step(); act != actRead {
			t.Fatalf("action %d", act)
		}
		c.out = c.out[:0]
	})
	if allocs != 0 {
		t.Errorf("%v allocations per request", allocs)
	}
}

// BenchmarkStep is the CPU one request costs the server beyond its two
// system calls: parse, handler, response.
func BenchmarkStep(b *testing.B) {
	c := benchConn(b, hello)
	const req = "GET /hello/world?x=1 HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n"
	b.ReportAllocs()
	for b.Loop() {
		feed(c, req)
		c.step()
		c.out = c.out[:0]
	}
}

// TestPipelinedPending: a buffer full of pipelined requests is answered in
// writes of about maxPending bytes, not all at once.
func TestPipelinedPending(t *testing.T) {
	c := benchConn(t, hello)
	const req = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
	c.grow(1 << 20)
	for c.end+len(req) <= len(c.buf) {
		c.got(copy(c.buf[c.end:], req), nil)
	}
	writes, answers := 0, 0
	for {
		act := c.step()
		if len(c.out) > maxPending+1024 {
			t.Fatalf("%d bytes of answers pending", len(c.out))
		}
		answers += bytes.Count(c.out, []byte("HTTP/1.1 200 OK"))
		c.out = c.out[:0]
		writes++
		if act != actWrite {
			break
		}
	}
	if want := (1 << 20) / len(req); answers != want || writes < 10 {
		t.Fatalf("%d answers in %d writes, want %d answers in many writes", answers, writes, want)
	}
}

// TestStepHandOff: a pipelined batch whose handlers do not wait is
// answered by one step (one write); a request handed to a WaitHandler
// makes step return with the answers before it (a write of their own), and
// the step after the WaitHandler has run answers it and the rest of the
// batch together, in order.
func TestStepHandOff(t *testing.T) {
	wh := &WaitHandler{} // step only records it: the connection's coroutine would run it
	c := benchConn(t, func(w *ResponseWriter, r *Request) {
		if string(r.Path()) == "/wait" {
			w.Wait(wh)
			return
		}
		w.WriteString("plain " + string(r.Path()))
	})
	get := func(p string) string { return "GET " + p + " HTTP/1.1\r\nHost: x\r\n\r\n" }
	feed(c, get("/a")+get("/b")+get("/c"))
	if act := c.step(); act != actRead || bytes.Count(c.out, []byte("HTTP/1.1 200")) != 3 {
		t.Fatalf("plain batch: action %d, answers %q", act, c.out)
	}
	c.out = c.out[:0]
	feed(c, get("/a")+get("/wait")+get("/c"))
	if act := c.step(); act != actHandOff || c.phase != phHandler || !bytes.HasSuffix(c.out, []byte("plain /a")) || bytes.Count(c.out, []byte("HTTP/1.1")) != 1 {
		t.Fatalf("batch with a waiting request: action %d, phase %d, first write %q", act, c.phase, c.out)
	}
	c.out = c.out[:0]
	if c.w.waiting != wh {
		t.Fatal("the WaitHandler was not recorded")
	}
	c.w.WriteString("waited") // what the WaitHandler would write
	if act := c.step(); act != actRead || !bytes.Contains(c.out, []byte("waited")) || !bytes.HasSuffix(c.out, []byte("plain /c")) || bytes.Count(c.out, []byte("HTTP/1.1")) != 2 {
		t.Fatalf("after the WaitHandler: action %d, second write %q", act, c.out)
	}
}
