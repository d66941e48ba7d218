package main

import (
	"context"
	"fmt"
	"log"
	"strconv"
	"time"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// echoServer is gnet's echo server, as its examples write it: every
// traffic event writes back all the bytes that have arrived.
type echoServer struct {
	gnet.BuiltinEventEngine
	eng    gnet.Engine
	booted chan struct{}
}

func (s *echoServer) OnBoot(eng gnet.Engine) gnet.Action {
	s.eng = eng
	close(s.booted)
	return gnet.None
}

func (s *echoServer) OnTraffic(c gnet.Conn) gnet.Action {
	buf, _ := c.Next(-1)
	c.Write(buf)
	return gnet.None
}

// stderrLogger is gnet's logger: its warnings and errors go to standard
// error (gnet's own logger writes to standard output, where the child's
// result goes).
type stderrLogger struct{}

func (stderrLogger) Debugf(string, ...any)             {}
func (stderrLogger) Infof(string, ...any)              {}
func (stderrLogger) Warnf(format string, args ...any)  { logStderr("gnet: "+format, args...) }
func (stderrLogger) Errorf(format string, args ...any) { logStderr("gnet: "+format, args...) }
func (stderrLogger) Fatalf(format string, args ...any) { log.Fatalf("gnet: "+format, args...) }

// startGnet starts a gnet echo server of the model ("gnet/1": one event
// loop; "gnet/N": one per CPU, gnet's multicore mode) on a free port of
// 127.0.0.1 and returns its address and the function that stops it.
func startGnet(model string) (addr string, stop func() error, err error) {
	var opts []gnet.Option
	switch model {
	case "gnet/1":
		opts = append(opts, gnet.WithMulticore(false))
	case "gnet/N":
		opts = append(opts, gnet.WithMulticore(true))
	default:
		return "", nil, fmt.Errorf("unknown echo model %q", model)
	}
	opts = append(opts, gnet.WithLogger(stderrLogger{}))
	s := &echoServer{booted: make(chan struct{})}
	ran := make(chan error, 1)
	go func() { ran <- gnet.Run(s, "tcp4://127.0.0.1:0", opts...) }()
	select {
	case <-s.booted:
	case err := <-ran:
		return "", nil, fmt.Errorf("gnet: %v", err)
	}
	stop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := s.eng.Stop(ctx)
		if rerr := <-ran; err == nil {
			err = rerr
		}
		return err
	}
	fd, err := s.eng.Dup()
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("gnet: listener: %v", err)
	}
	sa, err := unix.Getsockname(fd)
	unix.Close(fd)
	in4, ok := sa.(*unix.SockaddrInet4)
	if err != nil || !ok {
		stop()
		return "", nil, fmt.Errorf("gnet: listener address %v: %v", sa, err)
	}
	return "127.0.0.1:" + strconv.Itoa(in4.Port), stop, nil
}
