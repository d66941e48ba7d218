//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/hook"
	"golang.org/x/sys/unix"
)

type clientConfig struct {
	addr     string
	conns    int
	size     int
	duration time.Duration
	loops    int // 0: runtime.GOMAXPROCS(0)
	out      io.Writer
}

type clientResult struct {
	requests, failures int64
	elapsed            time.Duration
}

func (r clientResult) perSecond() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// runClient is libco's example_echocli: conns coroutines spread round-robin
// over the envs of a group, each connecting and ping-ponging a message
// until the duration is over.
// It prints the requests of each second and the total.
func runClient(cfg clientConfig) (clientResult, error) {
	ap, err := netip.ParseAddrPort(cfg.addr)
	if err != nil || !ap.Addr().Is4() {
		return clientResult{}, fmt.Errorf("bad IPv4 address %q", cfg.addr)
	}
	sa := &unix.SockaddrInet4{Addr: ap.Addr().As4(), Port: int(ap.Port())}
	cfg.size = max(cfg.size, 1)
	var ok, failed atomic.Int64
	start := time.Now()
	end := start.Add(cfg.duration)
	done, reported := make(chan struct{}), make(chan struct{})
	go func() { // the per-second report
		defer close(reported)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last := int64(0)
		for sec := 1; ; sec++ {
			select {
			case <-done:
				return
			case <-tick.C:
				n := ok.Load()
				fmt.Fprintf(cfg.out, "time %d: %d req/s, %d failed\n", sec, n-last, failed.Load())
				last = n
			}
		}
	}()
	g, err := stackful.NewGroup(cfg.loops)
	if err != nil {
		close(done)
		<-reported
		return clientResult{}, err
	}
	for range cfg.conns {
		g.SpawnNext(func(co *stackful.Co) { pingPong(co, sa, cfg.size, end, &ok, &failed) })
	}
	// Shutdown waits for the coroutines, which end at end.
	if err := g.Shutdown(time.Until(end) + 10*time.Second); err != nil {
		failed.Add(1)
		fmt.Fprintln(cfg.out, "client:", err)
	}
	close(done)
	<-reported
	res := clientResult{requests: ok.Load(), failures: failed.Load(), elapsed: time.Since(start)}
	fmt.Fprintf(cfg.out, "total: %d requests in %v with %d connections: %.0f req/s, %d failed\n",
		res.requests, res.elapsed.Round(time.Millisecond), cfg.conns, res.perSecond(), res.failures)
	return res, nil
}

// pingPong is libco's readwrite_routine of the client: connect, then write
// a message and read it back until end; on an error, close and reconnect.
func pingPong(co *stackful.Co, addr *unix.SockaddrInet4, size int, end time.Time, ok, failed *atomic.Int64) {
	co.EnableHook()
	sa := *addr // x/sys writes into a Sockaddr when it is used: one per coroutine
	msg := bytes.Repeat([]byte("x"), size)
	buf := make([]byte, size)
	fd := -1
	defer func() {
		if fd >= 0 {
			hook.Close(fd)
		}
	}()
	for time.Now().Before(end) {
		if fd < 0 {
			var err error
			if fd, err = hook.Socket(unix.AF_INET, unix.SOCK_STREAM, 0); err != nil {
				failed.Add(1)
				hook.Usleep(10000)
				continue
			}
			unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
			if err := hook.Connect(fd, &sa); err != nil {
				failed.Add(1)
				hook.Close(fd)
				fd = -1
				hook.Usleep(10000)
				continue
			}
		}
		if err := exchange(fd, msg, buf); err != nil {
			failed.Add(1)
			hook.Close(fd)
			fd = -1
			continue
		}
		ok.Add(1)
	}
}

func exchange(fd int, msg, buf []byte) error {
	if _, err := hook.Write(fd, msg); err != nil {
		return err
	}
	for got := 0; got < len(buf); {
		n, err := hook.Read(fd, buf[got:])
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrUnexpectedEOF
		}
		got += n
	}
	return nil
}
