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
