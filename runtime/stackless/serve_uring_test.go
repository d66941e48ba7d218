//go:build linux

package stackless

import (
	"bytes"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// bulkThenClose writes size bytes to fd, then closes it.
type bulkThenClose struct {
	Base
	fd   int
	data []byte
	comp *bool // set to whether fd is in completion mode
}

func (f *bulkThenClose) Step(t *Task) Status {
	if f.PC == 0 {
		*f.comp = t.Loop().Lookup(f.fd).InCompletion()
		f.PC = 1
	}
	if _, err := t.Write(f.fd, f.data); t.Blocked() {
		return Suspend
	} else if err != nil {
		panic(err)
	}
	t.Close(f.fd)
	return Done
}

// TestServeTCPCompletion: on io_uring, ServeTCP's connections are in
// completion mode; a handler that writes more than the socket and the
// send queue hold and then closes delivers every byte before the end of
// the stream, and an echo handler echoes.
func TestServeTCPCompletion(t *testing.T) {
	l, err := loop.NewBackend(loop.BackendUring)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.Completion() {
		t.Skip("no completion I/O on this backend:", l.Backend())
	}
	data := bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuv"), 64<<10) // 2 MiB
	var comp bool
	bulk, err := ServeTCP(l, "tcp4", "127.0.0.1:0", func(fd int) Frame { return &bulkThenClose{fd: fd, data: data, comp: &comp} })
	if err != nil {
		t.Fatal(err)
	}
	echo, err := ServeTCP(l, "tcp4", "127.0.0.1:0", serveEcho)
	if err != nil {
		t.Fatal(err)
	}
	runUntil(t, l, func() {
		c, err := net.Dial("tcp4", bulk.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		got, err := io.ReadAll(c)
		c.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("bulk: %d bytes, %v; want %d", len(got), err, len(data))
		}
		e, err := net.Dial("tcp4", echo.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		for _, m := range []string{"a", "hello", string(data[:100000])} {
			exchange(t, e, m)
		}
		e.Close()
	})
	if !comp {
		t.Error("the connection was not in completion mode")
	}
	if err := bulk.Shutdown(-1); err != nil {
		t.Error(err)
	}
	if err := echo.Shutdown(-1); err != nil {
		t.Error(err)
	}
}

// TestServeTCPCompletionHalfClose: a client writes, half-closes, and reads
// everything back until the end of the stream (cosoak's half-close
// client): the echo answers every byte before it closes.
func TestServeTCPCompletionHalfClose(t *testing.T) {
	l, err := loop.NewBackend(loop.BackendUring)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.Completion() {
		t.Skip("no completion I/O on this backend:", l.Backend())
	}
	s, err := ServeTCP(l, "tcp4", "127.0.0.1:0", serveEcho)
	if err != nil {
		t.Fatal(err)
	}
	runUntil(t, l, func() {
		for i, size := range []int{100, 4000, 46161, 13419, 200000} {
			c, err := net.DialTCP("tcp4", nil, s.Addr())
			if err != nil {
				t.Error(err)
				return
			}
			msg := bytes.Repeat([]byte{byte('a' + i)}, size)
			go func() {
				c.Write(msg)
				c.CloseWrite()
			}()
			got, err := io.ReadAll(c)
			c.Close()
			if err != nil || !bytes.Equal(got, msg) {
				t.Errorf("%d bytes, half-closed: %d came back, %v", size, len(got), err)
			}
		}
	})
	if err := s.Shutdown(-1); err != nil {
		t.Error(err)
	}
}

// TestServeTCPMultishotAccept: on io_uring, ServeTCP's listener is served
// by one multishot accept (loop.RegisterAccept): 200 clients connected at
// once are all accepted and echoed; Shutdown with connections still
// arriving leaves no descriptor open.
func TestServeTCPMultishotAccept(t *testing.T) {
	l, err := loop.NewBackend(loop.BackendUring)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.Completion() {
		t.Skip("no completion I/O on this backend:", l.Backend())
	}
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	base := fds()
	s, err := ServeTCP(l, "tcp4", "127.0.0.1:0", serveEcho)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	var late []net.Conn
	runUntil(t, l, func() {
		cs := make([]net.Conn, n)
		for i := range cs {
			if cs[i], err = net.Dial("tcp4", s.Addr().String()); err != nil {
				t.Error(err)
				return
			}
		}
		for _, c := range cs {
			exchange(t, c, "ping")
			c.Close()
		}
		for range 20 {
			c, err := net.Dial("tcp4", s.Addr().String())
			if err != nil {
				t.Error(err)
				return
			}
			late = append(late, c)
		}
	})
	if f := l.Lookup(s.lfd); f == nil || !f.InCompletion() {
		t.Error("the listener is not served by a multishot accept")
	}
	if err := s.Shutdown(time.Second); err != nil {
		t.Error(err)
	}
	for _, c := range late {
		c.Close()
	}
	if got := fds(); got != base {
		t.Errorf("%d descriptors open after Shutdown, want %d", got, base)
	}
}
