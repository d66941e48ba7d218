//go:build linux

package main

import (
	"fmt"
	"io"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/hook"
	"golang.org/x/sys/unix"
)

type serverConfig struct {
	addr    string // 127.0.0.1:0 picks a port
	workers int
	envs    int
	out     io.Writer
}

// A server is envs accept coroutines with their workers, each env on its
// own goroutine.
type server struct {
	addr  string
	lfds  []int
	wg    sync.WaitGroup
	mu    sync.Mutex
	stats serverStats
}

type serverStats struct {
	accepted, rejected, emfile int
}

// listenFD is libco's CreateTcpSocket: a hook socket bound to addr, with
// SO_REUSEPORT so that several envs can listen on one port.
func listenFD(addr string) (int, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().Is4() {
		return -1, fmt.Errorf("bad IPv4 address %q", addr)
	}
	fd, err := hook.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: ap.Addr().As4(), Port: int(ap.Port())}); err != nil {
		hook.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, 1024); err != nil {
		hook.Close(fd)
		return -1, err
	}
	return fd, nil
}

func startServer(cfg serverConfig) (*server, error) {
	if cfg.envs < 1 || cfg.workers < 1 {
		return nil, fmt.Errorf("need at least one env and one worker")
	}
	s := &server{}
	addr := cfg.addr
	for range cfg.envs {
		fd, err := listenFD(addr)
		if err != nil {
			for _, fd := range s.lfds {
				hook.Close(fd)
			}
			return nil, err
		}
		if len(s.lfds) == 0 {
			sa, _ := unix.Getsockname(fd)
			in := sa.(*unix.SockaddrInet4)
			addr = netip.AddrPortFrom(netip.AddrFrom4(in.Addr), uint16(in.Port)).String()
		}
		s.lfds = append(s.lfds, fd)
	}
	s.addr = addr
	for _, lfd := range s.lfds {
		s.wg.Add(1)
		go s.runEnv(lfd, cfg)
	}
	return s, nil
}

// stop closes the listeners, which ends every env.
func (s *server) stop() {
	for _, fd := range s.lfds {
		hook.Close(fd) // handed to the env's loop: wakes its accept coroutine
	}
	s.wg.Wait()
}

func (s *server) count(f func(*serverStats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

// A worker is libco's task_t: a coroutine and the connection it serves.
type worker struct {
	co *stackful.Co
	fd int
}

// runEnv is one env: libco's main for one process.
func (s *server) runEnv(lfd int, cfg serverConfig) {
	defer s.wg.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	env, err := stackful.NewEnv()
	if err != nil {
		fmt.Fprintln(cfg.out, "env:", err)
		return
	}
	defer env.Close()

	var idle []*worker // libco's g_readwrite stack
	for range cfg.workers {
		w := &worker{fd: -1}
		w.co = env.Create(func(co *stackful.Co) { readWrite(co, w, &idle) }, nil)
		w.co.Resume() // runs until it parks itself on the idle stack
	}
	accepting := true
	acceptor := env.Create(func(co *stackful.Co) {
		defer func() { accepting = false }()
		s.accept(co, lfd, &idle)
	}, nil)
	acceptor.Resume()
	env.Run(func() bool { return !accepting })
}

// readWrite is libco's readwrite_routine: park on the idle stack until the
// acceptor hands over a connection, echo it until the peer closes, repeat.
func readWrite(co *stackful.Co, w *worker, idle *[]*worker) {
	co.EnableHook()
	buf := make([]byte, 16<<10)
	for {
		if w.fd == -1 {
			*idle = append(*idle, w)
			co.Yield() // the acceptor resumes us with a connection
			continue
		}
		fd := w.fd
		w.fd = -1
		for {
			n, err := hook.Read(fd, buf) // waits on the loop
			if err == nil && n > 0 {
				_, err = hook.Write(fd, buf[:n])
				if err == nil {
					continue
				}
			}
			hook.Close(fd) // end of stream or error
			break
		}
	}
}

// accept is libco's accept_routine. Where libco polls the listening socket
// again after a failed accept (and so spins while out of descriptors), it
// backs off.
func (s *server) accept(co *stackful.Co, lfd int, idle *[]*worker) {
	co.EnableHook()
	var delay time.Duration
	for {
		fd, _, err := hook.Accept(lfd) // waits on the loop
		if err == unix.EMFILE || err == unix.ENFILE || err == unix.ENOBUFS || err == unix.ENOMEM {
			s.count(func(st *serverStats) { st.emfile++ })
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			hook.Usleep(uint(delay / time.Microsecond))
			continue
		}
		if err != nil {
			return // the listener was closed
		}
		delay = 0
		if len(*idle) == 0 {
			hook.Close(fd) // no worker free, as in libco
			s.count(func(st *serverStats) { st.rejected++ })
			continue
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		w := (*idle)[len(*idle)-1]
		*idle = (*idle)[:len(*idle)-1]
		w.fd = fd
		s.count(func(st *serverStats) { st.accepted++ })
		w.co.Resume()
	}
}
