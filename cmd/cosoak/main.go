//go:build linux

package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

func main() {
	if maybeRunChild() {
		return
	}
	log.SetFlags(0)
	log.SetPrefix("cosoak: ")
	cfg := config{}
	flag.DurationVar(&cfg.d, "d", 3*time.Minute, "how long the load runs")
	flag.Uint64Var(&cfg.seed, "seed", uint64(time.Now().UnixNano()), "random seed (printed, so a run can be repeated)")
	flag.IntVar(&cfg.clients, "clients", 16, "client goroutines")
	flag.BoolVar(&cfg.quiet, "q", false, "no progress lines")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: cosoak [-d duration] [-seed N] [-clients N] [-q]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 0 || cfg.d <= 0 || cfg.clients <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	r := run(cfg, os.Stderr)
	fmt.Println(r.summary())
	if !r.ok() {
		os.Exit(1)
	}
}

// config is what a run does.
type config struct {
	d       time.Duration
	seed    uint64
	clients int
	quiet   bool
}

// A soak is one run's shared state. Counters are atomic: clients and
// servers update them from their own goroutines.
type soak struct {
	cfg      config
	start    time.Time
	deadline time.Time // clients start no new exchange after it

	requests atomic.Int64 // exchanges verified: echo round trips, HTTP responses
	bytes    atomic.Int64 // payload bytes verified
	faults   atomic.Int64 // faults injected
	lost     atomic.Int64 // bytes sent in a verified exchange that did not come back intact
	values   atomic.Int64 // values that crossed a channel pipeline exactly once

	mu       sync.Mutex
	failures []string
	nfail    int
}

// fail records a failed check; the run will exit non-zero.
func (s *soak) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nfail++
	if len(s.failures) < 20 {
		s.failures = append(s.failures, msg)
	}
}

// rng returns a generator for one goroutine of the run, derived from the
// seed so that a run's choices can be repeated.
func (s *soak) rng(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(s.cfg.seed, stream))
}

// A result is what a run found.
type result struct {
	d                                     time.Duration
	requests, bytes, faults, lost, values int64
	fds, goroutines, timers, tasks        int
	early                                 int
	failures                              []string
	nfail                                 int
	lateness                              string
}

func (r result) leaked() int { return max(r.fds, 0) + max(r.goroutines, 0) + r.timers + r.tasks }

func (r result) ok() bool { return r.nfail == 0 && r.lost == 0 && r.leaked() == 0 && r.early == 0 }

func (r result) summary() string {
	var b strings.Builder
	for _, f := range r.failures {
		fmt.Fprintf(&b, "cosoak: FAIL: %s\n", f)
	}
	if r.nfail > len(r.failures) {
		fmt.Fprintf(&b, "cosoak: FAIL: ... %d more\n", r.nfail-len(r.failures))
	}
	if r.lateness != "" {
		fmt.Fprintf(&b, "cosoak: %s\n", r.lateness)
	}
	fmt.Fprintf(&b, "cosoak: %v: requests %d, bytes verified %s, channel values %d, faults injected %d, lost %d, leaked %d (fds %d, goroutines %d, timers %d, tasks %d), early wake-ups %d, failed checks %d",
		r.d.Round(time.Second), r.requests, sizeString(r.bytes), r.values, r.faults, r.lost, r.leaked(),
		r.fds, r.goroutines, r.timers, r.tasks, r.early, r.nfail)
	return b.String()
}

func sizeString(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// run runs the whole soak and reports what it found; progress goes to
// progress unless cfg.quiet.
func run(cfg config, progress *os.File) result {
	// Go's own network poller (an epoll and an eventfd) starts with the
	// first network use and stays: start it before taking the baseline.
	if ln, err := net.Listen("tcp4", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	baseFDs := openFDs()
	baseG := runtime.NumGoroutine()
	s := &soak{cfg: cfg, start: time.Now()}
	s.deadline = s.start.Add(cfg.d)
	fmt.Fprintf(progress, "cosoak: seed %d, %v, %d clients\n", cfg.seed, cfg.d, cfg.clients)

	// Overrun: dump what everything waits for, then give up.
	hang := time.AfterFunc(cfg.d+time.Minute, func() {
		fmt.Fprintf(os.Stderr, "cosoak: still running %v after the end of the load: dumping state\n", time.Minute)
		loop.DumpAll(os.Stderr, time.Second)
		pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
		os.Exit(2)
	})
	defer hang.Stop()

	srv := startServers(s)
	var wg sync.WaitGroup
	for i := range cfg.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.client(srv, uint64(100+i))
		}()
	}
	wg.Add(3)
	go func() { defer wg.Done(); s.lifecycles() }()
	go func() { defer wg.Done(); s.fdExhaustion() }()
	go func() { defer wg.Done(); s.pooledTasks() }()

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-tick.C:
			if !cfg.quiet {
				fmt.Fprintf(progress, "cosoak: %v: requests %d, bytes verified %s, channel values %d, faults %d, lost %d, failed checks %d\n",
					time.Since(s.start).Round(time.Second), s.requests.Load(), sizeString(s.bytes.Load()), s.values.Load(),
					s.faults.Load(), s.lost.Load(), s.failCount())
			}
		}
	}
	st := srv.stop()

	r := result{
		d: time.Since(s.start), requests: s.requests.Load(), bytes: s.bytes.Load(),
		faults: s.faults.Load(), lost: s.lost.Load(), values: s.values.Load(),
		timers: st.armed, tasks: st.liveTasks, early: st.early, lateness: st.lateness,
	}
	// Goroutines and descriptors of closed connections go away a little
	// after the close: give them a moment.
	settle := time.Now().Add(5 * time.Second)
	for {
		r.fds = len(newFDs(baseFDs))
		r.goroutines = runtime.NumGoroutine() - baseG
		if (r.fds <= 0 && r.goroutines <= 0) || time.Now().After(settle) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Leaks are reported whatever came before: they go first.
	var leaks []string
	if r.goroutines > 0 {
		var b strings.Builder
		pprof.Lookup("goroutine").WriteTo(&b, 1)
		leaks = append(leaks, fmt.Sprintf("%d goroutines left:\n%s", r.goroutines, b.String()))
	}
	if r.fds > 0 {
		leaks = append(leaks, fmt.Sprintf("%d descriptors left: %s", r.fds, strings.Join(newFDs(baseFDs), " ")))
	}
	s.mu.Lock()
	s.failures = append(leaks, s.failures...)
	s.nfail += len(leaks)
	s.mu.Unlock()
	s.mu.Lock()
	r.failures, r.nfail = s.failures, s.nfail
	s.mu.Unlock()
	return r
}

func (s *soak) failCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nfail
}

// openFDs returns this process's open descriptors and what they are
// (empty where /proc is missing: the check is then skipped).
func openFDs() map[string]string {
	fds := map[string]string{}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fds
	}
	for _, e := range ents {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil { // the directory's own descriptor is gone by now
			fds[e.Name()] = target
		}
	}
	return fds
}

// newFDs lists the descriptors open now that were not open, or were
// something else, in base.
func newFDs(base map[string]string) []string {
	var added []string
	for fd, target := range openFDs() {
		if base[fd] != target {
			added = append(added, fd+"->"+target)
		}
	}
	sort.Strings(added)
	return added
}
