package gate_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

type redisServer struct {
	cmd  *exec.Cmd
	addr string
	port string
}

// startRedis starts a private redis-server on 127.0.0.1:port (a free port
// if port is empty), in the foreground, without persistence, and waits
// until it accepts connections.
func startRedis(t *testing.T, bin, port string) *redisServer {
	t.Helper()
	if port == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		_, port, _ = net.SplitHostPort(l.Addr().String())
		l.Close()
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "log"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &redisServer{cmd: cmd, addr: "127.0.0.1:" + port, port: port}
	for range 200 {
		if c, err := net.Dial("tcp", s.addr); err == nil {
			c.Close()
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.stop(t)
	t.Fatalf("redis-server on %s did not start", s.addr)
	return nil
}

// stop kills the server and waits for it to exit; a second stop does
// nothing.
func (s *redisServer) stop(t *testing.T) {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}
