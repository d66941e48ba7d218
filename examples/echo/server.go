//go:build linux

package main

import (
	"fmt"
	"io"
	"net/netip"
	"sync"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/hook"
	"golang.org/x/sys/unix"
)

type serverConfig struct {
	addr    string // 127.0.0.1:0 picks a port
	workers int
	loops   int           // 0: runtime.GOMAXPROCS(0)
	idle    time.Duration // a connection silent this long is closed; 0: never
	out     io.Writer
}

// shutdownGrace is how long stop lets the connections being served finish
// before their workers' waits are canceled.
const shutdownGrace = 5 * time.Second

// A server is one accept coroutine with its workers per env of a group,
// each env on its own goroutine and thread.
type server struct {
	addr  string
	g     *stackful.Group
	mu    sync.Mutex
	stats serverStats
}

type serverStats struct {
	accepted, rejected, emfile int
}

// listenFD is libco's CreateTcpSocket: a hook socket bound to addr, with
// SO_REUSEPORT so that every env can listen on one port.
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
	if cfg.workers < 1 {
		return nil, fmt.Errorf("need at least one worker")
	}
	g, err := stackful.NewGroup(cfg.loops)
	if err != nil {
		return nil, err
	}
	s := &server{g: g}
	var lfds []int
	addr := cfg.addr
	for range g.Len() {
		fd, err := listenFD(addr)
		if err != nil {
			for _, fd := range lfds {
				hook.Close(fd)
			}
			g.Shutdown(0)
			return nil, err
		}
		if len(lfds) == 0 {
			sa, _ := unix.Getsockname(fd)
			in := sa.(*unix.SockaddrInet4)
			addr = netip.AddrPortFrom(netip.AddrFrom4(in.Addr), uint16(in.Port)).String()
		}
		lfds = append(lfds, fd)
	}
	s.addr = addr
	for i, lfd := range lfds {
		p := &pool{}
		g.OnShutdown(i, func() { hook.Close(lfd) }) // wakes the accept coroutine
		g.Submit(i, func() { s.startEnv(g.Env(i), lfd, p, cfg.workers, cfg.idle) })
	}
	return s, nil
}

// stop closes the listeners, lets the connections being served end for up
// to shutdownGrace, and closes the envs.
func (s *server) stop() error { return s.g.Shutdown(shutdownGrace) }

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

// A pool is one env's workers: libco's g_readwrite stack of idle ones, and
// whether the env is closing (the listener has been closed).
type pool struct {
	idle    []*worker
	closing bool
}

// startEnv is libco's main for one process, run on the env's goroutine: it
// starts the workers and the accept coroutine. Once the listener is closed
// the accept coroutine wakes the idle workers, which end; busy ones end
// with their connection.
func (s *server) startEnv(env *stackful.Env, lfd int, p *pool, workers int, idle time.Duration) {
	for range workers {
		w := &worker{fd: -1}
		w.co = env.Create(func(co *stackful.Co) { readWrite(co, w, p) }, nil)
		w.co.Resume() // runs until it parks itself on the idle stack
	}
	env.Create(func(co *stackful.Co) {
		s.accept(co, lfd, p, idle)
		p.closing = true
		for _, w := range p.idle {
			w.co.Resume()
		}
		p.idle = nil
	}, nil).Resume()
}

// readWrite is libco's readwrite_routine: park on the idle stack until the
// acceptor hands over a connection, echo it until the peer closes, repeat.
func readWrite(co *stackful.Co, w *worker, p *pool) {
	co.EnableHook()
	buf := make([]byte, 16<<10)
	for {
		if p.closing {
			return
		}
		if w.fd == -1 {
			p.idle = append(p.idle, w)
			co.Yield() // the acceptor resumes us with a connection, or to end
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
			hook.Close(fd) // end of stream, error, or idle for SO_RCVTIMEO
			break
		}
	}
}

// accept is libco's accept_routine. Where libco polls the listening socket
// again after a failed accept (and so spins while out of descriptors), it
// backs off.
func (s *server) accept(co *stackful.Co, lfd int, p *pool, idle time.Duration) {
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
		if len(p.idle) == 0 {
			hook.Close(fd) // no worker free, as in libco
			s.count(func(st *serverStats) { st.rejected++ })
			continue
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		if idle > 0 { // libco's way: a hooked read waits at most SO_RCVTIMEO
			tv := unix.NsecToTimeval(idle.Nanoseconds())
			hook.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
		}
		w := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		w.fd = fd
		s.count(func(st *serverStats) { st.accepted++ })
		w.co.Resume()
	}
}
