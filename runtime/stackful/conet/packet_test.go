//go:build linux

package conet

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestUDP exchanges datagrams between a listening packet conn and a dialled
// one, in coroutines, with a read deadline at the end.
func TestUDP(t *testing.T) {
	e := newEnv(t)
	pc, err := ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	tk := startTicker(e)
	var reply string
	var from net.Addr
	var deadlineErr error
	done := 0
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		buf := make([]byte, 64)
		n, addr, err := pc.ReadFrom(buf) // waits for the client
		if err != nil {
			t.Error(err)
			return
		}
		from = addr
		pc.WriteTo([]byte(strings.ToUpper(string(buf[:n]))), addr)
		pc.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
		_, _, deadlineErr = pc.ReadFrom(buf)
	})
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		co.Sleep(20 * time.Millisecond)
		c, err := Dial("udp", pc.LocalAddr().String())
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		c.Write([]byte("datagram"))
		buf := make([]byte, 64)
		n, err := c.Read(buf)
		if err != nil {
			t.Error(err)
		}
		reply = string(buf[:n])
	})
	runUntil(t, e, 10*time.Second, func() bool { return done == 2 })
	ticks := tk.N
	tk.End(t, e)
	if reply != "DATAGRAM" {
		t.Errorf("reply %q", reply)
	}
	if ua, ok := from.(*net.UDPAddr); !ok || !ua.IP.IsLoopback() {
		t.Errorf("ReadFrom address %v", from)
	}
	if !errors.Is(deadlineErr, os.ErrDeadlineExceeded) {
		t.Errorf("read after the deadline: %v", deadlineErr)
	}
	if ticks < 2 { // a call that blocked the env lets the ticker advance at most once
		t.Errorf("ticker advanced %d times", ticks)
	}
}

// TestUnix runs a stream over a Unix socket and datagrams over a unixgram
// socket; closing the listener removes its file.
func TestUnix(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s")
	ln, err := Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	gpath := filepath.Join(dir, "g")
	gc, err := ListenPacket("unixgram", gpath)
	if err != nil {
		t.Fatal(err)
	}
	defer gc.Close()
	var got, dgram string
	done := 0
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
			return
		}
		b, _ := io.ReadAll(c)
		got = string(b)
		c.Close()
	})
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		c, err := Dial("unix", path)
		if err != nil {
			t.Error(err)
			return
		}
		c.Write([]byte("over unix"))
		c.Close()
	})
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		buf := make([]byte, 32)
		n, _, err := gc.ReadFrom(buf)
		if err != nil {
			t.Error(err)
		}
		dgram = string(buf[:n])
	})
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		c, err := Dial("unixgram", gpath)
		if err != nil {
			t.Error(err)
			return
		}
		c.Write([]byte("unix datagram"))
		c.Close()
	})
	runUntil(t, e, 10*time.Second, func() bool { return done == 4 })
	if got != "over unix" || dgram != "unix datagram" {
		t.Errorf("stream %q, datagram %q", got, dgram)
	}
	ln.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("socket file after Close: %v", err)
	}
}

// fakeDNS answers A queries for any name with 127.0.0.1 and AAAA queries
// with no record, each after a delay, on 127.0.0.1 (plain goroutine).
func fakeDNS(t testing.TB, delay time.Duration) (addr string, queries func() int) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	count := make(chan int, 1)
	count <- 0
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			q := append([]byte(nil), buf[:n]...)
			c := <-count
			count <- c + 1
			go func() {
				time.Sleep(delay)
				if resp := dnsAnswer(q); resp != nil {
					pc.WriteTo(resp, from)
				}
			}()
		}
	}()
	return pc.LocalAddr().String(), func() int { c := <-count; count <- c; return c }
}

// dnsAnswer builds the reply to a one-question query (RFC 1035 4.1).
func dnsAnswer(q []byte) []byte {
	if len(q) < 12 {
		return nil
	}
	i := 12
	for i < len(q) && q[i] != 0 {
		i += int(q[i]) + 1
	}
	if i+5 > len(q) {
		return nil
	}
	qend := i + 5 // zero label, type, class
	qtype := binary.BigEndian.Uint16(q[i+1:])
	resp := append([]byte(nil), q[:qend]...)
	resp[2], resp[3] = 0x81, 0x80            // response, recursion desired and available, no error
	binary.BigEndian.PutUint16(resp[6:], 0)  // answers
	binary.BigEndian.PutUint16(resp[8:], 0)  // authority
	binary.BigEndian.PutUint16(resp[10:], 0) // additional
	if qtype == 1 {
		binary.BigEndian.PutUint16(resp[6:], 1)
		resp = append(resp, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1)
	}
	return resp
}

// TestResolver resolves names through a slow DNS server in a coroutine: the
// lookup yields (a ticker keeps running), and the Dialer uses it.
func TestResolver(t *testing.T) {
	dns, queries := fakeDNS(t, 100*time.Millisecond)
	r := &Resolver{Resolver: &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", dns)
		},
	}}
	e := newEnv(t)
	ln := listenTCP(t)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	tk := startTicker(e)
	var addrs []string
	var lookupErr, dialErr error
	var ticks int
	done := 0
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		n0 := tk.N
		addrs, lookupErr = r.LookupHost(context.Background(), "service.cogen.test")
		ticks = tk.N - n0
		d := Dialer{Resolver: r, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp4", "service.cogen.test:"+port)
		if dialErr = err; err == nil {
			c.Close()
		}
	})
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	})
	runUntil(t, e, 20*time.Second, func() bool { return done == 2 })
	tk.End(t, e)
	if lookupErr != nil || len(addrs) != 1 || addrs[0] != "127.0.0.1" {
		t.Fatalf("lookup: %v, %v", addrs, lookupErr)
	}
	if dialErr != nil {
		t.Errorf("dial by name: %v", dialErr)
	}
	if ticks < 2 { // a call that blocked the env lets the ticker advance at most once
		t.Errorf("ticker advanced %d times during a 100 ms lookup: the lookup did not yield", ticks)
	}
	if queries() == 0 {
		t.Error("the DNS server saw no query")
	}
}
