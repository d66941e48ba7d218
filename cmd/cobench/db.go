//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cogen-go/cogen/client/resp"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

// The db group: GET round trips against a throwaway redis-server that
// cobench starts (COGEN_REDIS_SERVER, or redis-server on PATH; without one
// the group is skipped with a note). dbConns clients each keep one GET
// outstanding for a window, in four ways: go-redis from goroutines and
// from stackful coroutines (conet conns behind a cosync.Semaphore) - both
// run by client/gate's dbload binary, built from that nested module only
// when the group runs - and the coroutine-native client client/resp in
// a stackful env and as generated stackless frames, in this process. For
// each: round trips per second, the server's CPU per request (INFO cpu)
// and the client's. -quick leaves the go-redis rows out (building the
// nested module can take longer than a quick run).

const (
	dbConns = 50
	dbKey   = "cobench:key"
)

var dbModels = []string{"go-redis goroutines", "go-redis stackful (conet)", "resp stackful", "resp stackless (generated)"}

type dbResult struct {
	requests          int
	seconds           float64
	serverCPU, cliCPU float64
}

func runDB(s settings, p *progress) ([]Row, error) {
	bin := os.Getenv("COGEN_REDIS_SERVER")
	if bin == "" {
		bin, _ = exec.LookPath("redis-server")
	}
	if bin == "" {
		const why = "no redis-server installed (apt-get install redis-server, or set COGEN_REDIS_SERVER)"
		p.note("db: skipped: %s", why)
		return []Row{skipRow("db", "GET round trips against redis-server", why)}, nil
	}
	srv, err := startRedisServer(bin)
	if err != nil {
		return nil, fmt.Errorf("db: %w", err)
	}
	defer srv.stop()
	if _, err := redisCommand(srv.addr, "SET", dbKey, "0123456789abcdef"); err != nil {
		return nil, fmt.Errorf("db: %w", err)
	}
	var dbload string
	buildErr := errors.New("-quick does not build client/gate (run without -quick)")
	if !s.quick {
		var cleanup func()
		dbload, cleanup, buildErr = buildDBLoad(p)
		if buildErr == nil {
			defer cleanup()
		}
	}
	if buildErr != nil {
		p.note("db: go-redis rows skipped: %v", buildErr)
	}
	res := make([]dbResult, len(dbModels))
	for round := range s.loads {
		for i, model := range dbModels {
			if i < 2 && buildErr != nil {
				continue
			}
			p.step("db: %s, %d conns (round %d/%d)", model, dbConns, round+1, s.loads)
			cpu0, err := redisCPU(srv.addr)
			if err != nil {
				return nil, fmt.Errorf("db: %w", err)
			}
			var r dbResult
			switch i {
			case 0, 1:
				r, err = runDBLoad(dbload, srv.addr, []string{"goroutines", "coroutines"}[i], s.window)
			case 2:
				r, err = respStackful(srv.addr, s.window)
			case 3:
				r, err = respStackless(srv.addr, s.window)
			}
			if err != nil {
				return nil, fmt.Errorf("db: %s: %w", model, err)
			}
			cpu1, err := redisCPU(srv.addr)
			if err != nil {
				return nil, fmt.Errorf("db: %w", err)
			}
			r.serverCPU = cpu1 - cpu0
			a := &res[i]
			a.requests += r.requests
			a.seconds += r.seconds
			a.serverCPU += r.serverCPU
			a.cliCPU += r.cliCPU
		}
	}
	// Measure by measure, so that the table and the chart keep a measure's
	// rows together.
	var rps, srvCPU, cliCPU []Row
	conns := fmt.Sprintf(", %d conns, one GET outstanding each", dbConns)
	for i, model := range dbModels {
		r := res[i]
		if r.requests == 0 {
			if i < 2 && buildErr != nil {
				rps = append(rps, skipRow("db", "GET round trips per second"+conns, buildErr.Error()))
				rps[len(rps)-1].Model = model
			}
			continue
		}
		note := ""
		if i < 2 {
			note = "dbload (client/gate)"
		}
		base := i == 0 || (i == 3 && res[0].requests == 0) // go-redis on goroutines when it ran
		rps = append(rps, Row{Group: "db", Measure: "GET round trips per second" + conns, Model: model, Value: float64(r.requests) / r.seconds, Unit: "req/s", Base: base, Note: note})
		srvCPU = append(srvCPU, Row{Group: "db", Measure: "redis-server CPU per GET" + conns, Model: model, Value: r.serverCPU / float64(r.requests) * 1e6, Unit: "µs", Base: base})
		cliCPU = append(cliCPU, Row{Group: "db", Measure: "client CPU per GET" + conns, Model: model, Value: r.cliCPU / float64(r.requests) * 1e6, Unit: "µs", Base: base})
	}
	return append(append(rps, srvCPU...), cliCPU...), nil
}

type redisServer struct {
	cmd  *exec.Cmd
	dir  string
	addr string
}

// startRedisServer starts redis-server on a free port of 127.0.0.1,
// without persistence, and waits until it accepts connections.
func startRedisServer(bin string) (*redisServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	dir, err := os.MkdirTemp("", "cobench-redis-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", filepath.Join(dir, "log"))
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	s := &redisServer{cmd: cmd, dir: dir, addr: addr}
	for range 300 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return s, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("%s on %s did not start", bin, addr)
}

func (s *redisServer) stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
	os.RemoveAll(s.dir)
}

// redisCommand sends one command on a new connection and returns the
// reply's first line, or the bulk string that follows it.
func redisCommand(addr string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	switch {
	case strings.HasPrefix(line, "-"):
		return "", errors.New(line[1:])
	case strings.HasPrefix(line, "$"):
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", fmt.Errorf("reply %q", line)
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return line, nil
}

// redisCPU returns the server's CPU seconds so far (INFO cpu: user + system).
func redisCPU(addr string) (float64, error) {
	info, err := redisCommand(addr, "INFO", "cpu")
	if err != nil {
		return 0, err
	}
	total := 0.0
	for line := range strings.SplitSeq(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("INFO cpu: %q", line)
			}
			total += f
		}
	}
	return total, nil
}

// buildDBLoad builds client/gate's dbload into a temporary directory.
func buildDBLoad(p *progress) (exe string, cleanup func(), err error) {
	return buildNested(p, filepath.Join("client", "gate"), "./cmd/dbload", "dbload", "go-redis")
}

func runDBLoad(exe, addr, model string, d time.Duration) (dbResult, error) {
	out, err := exec.Command(exe, "-addr", addr, "-conns", strconv.Itoa(dbConns), "-d", d.String(), "-model", model, "-key", dbKey).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%v: %s", err, ee.Stderr)
		}
		return dbResult{}, err
	}
	var r struct {
		Requests int     `json:"requests"`
		Seconds  float64 `json:"seconds"`
		CPU      float64 `json:"cpu"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return dbResult{}, fmt.Errorf("dbload output %q: %w", out, err)
	}
	return dbResult{requests: r.Requests, seconds: r.Seconds, cliCPU: r.CPU}, nil
}

func selfCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// respConns connects n non-blocking sockets to addr (a blocking connect
// first: on loopback it is immediate) and returns resp conns on them.
func respConns(addr string, n int) ([]*resp.Conn, error) {
	ap, err := netipAddrPort(addr)
	if err != nil {
		return nil, err
	}
	var cs []*resp.Conn
	for range n {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.CloseOnExec(fd)
		}
		if err == nil {
			err = unix.Connect(fd, ap)
			if err == nil {
				unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
				err = unix.SetNonblock(fd, true)
			}
			if err != nil {
				unix.Close(fd)
			}
		}
		if err != nil {
			closeRespConns(cs)
			return nil, fmt.Errorf("connecting to %s: %w", addr, err)
		}
		cs = append(cs, resp.NewConn(fd))
	}
	return cs, nil
}

func closeRespConns(cs []*resp.Conn) {
	for _, c := range cs {
		unix.Close(c.FD())
	}
}

func netipAddrPort(addr string) (*unix.SockaddrInet4, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ip := net.ParseIP(host).To4()
	pn, err := strconv.Atoi(port)
	if ip == nil || err != nil {
		return nil, fmt.Errorf("not an IPv4 address and port: %q", addr)
	}
	sa := &unix.SockaddrInet4{Port: pn}
	copy(sa.Addr[:], ip)
	return sa, nil
}

func respStackful(addr string, d time.Duration) (dbResult, error) {
	cs, err := respConns(addr, dbConns)
	if err != nil {
		return dbResult{}, err
	}
	env, err := stackful.NewEnv()
	if err != nil {
		closeRespConns(cs)
		return dbResult{}, err
	}
	counts := make([]int, len(cs))
	var firstErr error
	done := 0
	c0, t0 := selfCPU(), time.Now()
	end := t0.Add(d)
	for i, c := range cs {
		env.Create(func(co *stackful.Co) {
			defer func() { done++ }()
			n, err := resp.GetLoop(co, c, dbKey, end)
			counts[i] = n
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}, nil).Resume()
	}
	err = env.Run(func() bool { return done == len(cs) })
	r := dbResult{seconds: time.Since(t0).Seconds(), cliCPU: selfCPU() - c0}
	env.Close()
	closeRespConns(cs)
	for _, n := range counts {
		r.requests += n
	}
	return r, errors.Join(err, firstErr)
}

func respStackless(addr string, d time.Duration) (dbResult, error) {
	cs, err := respConns(addr, dbConns)
	if err != nil {
		return dbResult{}, err
	}
	l, err := loop.New()
	if err != nil {
		closeRespConns(cs)
		return dbResult{}, err
	}
	c0, t0 := selfCPU(), time.Now()
	end := t0.Add(d)
	frames := make([]*resp.GetLoopFrame, len(cs))
	tasks := make([]*stackless.Task, len(cs))
	for i, c := range cs {
		frames[i] = resp.NewGetLoopFrame(c, dbKey, end)
		tasks[i] = stackless.Spawn(l, frames[i])
	}
	err = stackless.Run(l, tasks...)
	r := dbResult{seconds: time.Since(t0).Seconds(), cliCPU: selfCPU() - c0}
	l.Close()
	closeRespConns(cs)
	var errs []error
	for _, f := range frames {
		n, ferr := f.Result()
		r.requests += n
		errs = append(errs, ferr)
	}
	return r, errors.Join(append(errs, err)...)
}
