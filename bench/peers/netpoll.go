package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/cloudwego/netpoll"
)

// netpollEcho is netpoll's echo handler, as its examples write it: every
// request event writes back all the bytes that have arrived and flushes.
// netpoll runs it on a goroutine of its pool (gopool, netpoll's default
// runner), not on the poller's goroutine.
func netpollEcho(ctx context.Context, c netpoll.Connection) error {
	r, w := c.Reader(), c.Writer()
	defer r.Release()
	buf, err := r.Next(r.Len())
	if err != nil {
		return err
	}
	if _, err := w.WriteBinary(buf); err != nil {
		return err
	}
	return w.Flush()
}

// startNetpoll starts a netpoll echo server of the model ("netpoll/1": one
// poller, netpoll's own default below 20 cores; "netpoll/N": one per CPU)
// on a free port of 127.0.0.1. The poller count is netpoll's global
// setting, fixed before the first connection: one model per process.
func startNetpoll(model string) (addr string, stop func() error, err error) {
	pollers := 1
	switch model {
	case "netpoll/1":
	case "netpoll/N":
		pollers = runtime.NumCPU()
	default:
		return "", nil, fmt.Errorf("unknown echo model %q", model)
	}
	if err := netpoll.Configure(netpoll.Config{PollerNum: pollers, LoggerOutput: os.Stderr, LoadBalance: netpoll.RoundRobin}); err != nil {
		return "", nil, fmt.Errorf("netpoll: %v", err)
	}
	ln, err := netpoll.CreateListener("tcp4", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("netpoll: %v", err)
	}
	evl, err := netpoll.NewEventLoop(netpollEcho)
	if err != nil {
		ln.Close()
		return "", nil, fmt.Errorf("netpoll: %v", err)
	}
	served := make(chan error, 1)
	go func() { served <- evl.Serve(ln) }()
	stop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return errors.Join(evl.Shutdown(ctx), <-served)
	}
	// Shutdown before Serve has registered the listener would return at
	// once and leave Serve running: an echoed byte proves it serves.
	addr = ln.Addr().String()
	if err := echoOnce(addr); err != nil {
		ln.Close()
		return "", nil, fmt.Errorf("netpoll: %v", err)
	}
	return addr, stop, nil
}
