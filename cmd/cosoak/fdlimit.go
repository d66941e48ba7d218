//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
	"golang.org/x/sys/unix"
)

// The descriptor-exhaustion child: a conet echo server with a low
// RLIMIT_NOFILE, flooded with more connections than it has descriptors.
const (
	childEnv   = "COSOAK_CHILD"
	childLimit = 64  // RLIMIT_NOFILE of the child
	floodConns = 150 // connections the parent opens at once
)

// maybeRunChild runs the child's part and reports true if this process is
// the child.
func maybeRunChild() bool {
	if os.Getenv(childEnv) != "fdlimit" {
		return false
	}
	if err := fdLimitChild(); err != nil {
		fmt.Fprintln(os.Stderr, "cosoak child:", err)
		os.Exit(1)
	}
	return true
}

// fdLimitChild serves echo with conet on a low descriptor limit until its
// standard input closes, then shuts down and checks every connection's
// coroutine ended.
func fdLimitChild() error {
	lim := unix.Rlimit{Cur: childLimit, Max: childLimit}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return os.NewSyscallError("setrlimit", err)
	}
	env, err := stackful.NewEnv()
	if err != nil {
		return err
	}
	defer env.Close()
	ln, err := conet.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr())
	var serveErr error
	env.Create(func(co *stackful.Co) {
		serveErr = conet.Serve(co, ln, func(hc *stackful.Co, c net.Conn) {
			io.Copy(c, c)
			c.Close()
		}, nil)
	}, nil).Resume()
	stop := false
	go func() {
		io.Copy(io.Discard, os.Stdin)
		env.Loop().Submit(func() { stop = true })
	}()
	if err := env.Run(func() bool { return stop }); err != nil {
		return err
	}
	ln.Close()
	expired := false
	env.Loop().AfterFunc(5*time.Second, func() { expired = true })
	if err := env.Run(func() bool { return expired || env.Live() == 0 }); err != nil {
		return err
	}
	if env.Live() != 0 {
		return fmt.Errorf("%d coroutines still running after shutdown", env.Live())
	}
	if !errors.Is(serveErr, net.ErrClosed) {
		return fmt.Errorf("serve: %v", serveErr)
	}
	return nil
}

// fdExhaustion floods a child server beyond its descriptor limit, then
// checks it recovers: after the flood is gone a new client is served.
func (s *soak) fdExhaustion() {
	exe, err := os.Executable()
	if err != nil {
		s.fail("fd exhaustion: %v", err)
		return
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=fdlimit")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		s.fail("fd exhaustion: %v", err)
		return
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		s.fail("fd exhaustion: %v", err)
		return
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		s.fail("fd exhaustion: %v", err)
		return
	}
	defer func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				s.fail("fd exhaustion: child: %v: %s", err, stderr.String())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			s.fail("fd exhaustion: the child did not exit after its input closed")
		}
	}()
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		s.fail("fd exhaustion: reading the child's address: %v", err)
		return
	}
	addr = strings.TrimSpace(addr)

	for round := 0; round == 0 || (round < 1000 && time.Until(s.deadline) > 10*time.Second); round++ {
		if round > 0 {
			time.Sleep(5 * time.Second)
		}
		if !s.flood(addr) {
			return
		}
	}
}

// flood opens floodConns connections at once, each sending a byte, closes
// them all, and checks a new connection is served within a few seconds.
func (s *soak) flood(addr string) bool {
	s.faults.Add(1)
	var conns []net.Conn
	served := 0
	for range floodConns {
		c, err := net.DialTimeout("tcp4", addr, opTimeout)
		if err != nil {
			break // the backlog is full: that is a flood too
		}
		conns = append(conns, c)
		c.Write([]byte{1})
	}
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		var b [1]byte
		if n, _ := c.Read(b[:]); n == 1 {
			served++
		}
	}
	for _, c := range conns {
		c.Close()
	}
	if served >= len(conns) {
		s.fail("fd exhaustion: the child served all %d connections on a limit of %d descriptors: the flood did not exhaust it", len(conns), childLimit)
	}
	// Recovery: Serve backs off for up to a second while out of
	// descriptors, so a fresh connection must be served well within a few.
	recovered := time.Now().Add(5 * time.Second)
	for {
		c, err := dial(addr)
		if err == nil {
			c.SetDeadline(time.Now().Add(2 * time.Second))
			err = roundTrip(c, []byte("after the flood"), 0) // not counted: a failure here is retried
			c.Close()
			if err == nil {
				return true
			}
		}
		if time.Now().After(recovered) {
			s.fail("fd exhaustion: no connection served within 5s after the flood: %v", err)
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}
