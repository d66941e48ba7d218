package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cogen-go/cogen/internal/pgserver"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("durablepg: ")
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "bench":
		err = bench(os.Args[2:], os.Stdout)
	case "worker":
		err = worker(os.Args[2:], os.Stdout)
	case "sleepers":
		err = sleepers(os.Args[2:], os.Stdout)
	default:
		usage()
	}
	if errors.Is(err, pgserver.ErrNotInstalled) {
		log.Printf("skipped: %v", err)
		os.Exit(3)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: durablepg bench [-db url] [-engines cogen,dbos] [-n 10] [-c 100] [-w 2000] [-json] | durablepg worker ...")
	os.Exit(2)
}

// engineNames are the engines the benchmark knows, in the order they run.
var engineNames = []string{"cogen", "dbos"}

// engineSchema is each engine's schema in the database.
var engineSchema = map[string]string{"cogen": cogenSchema, "dbos": dbosSchema}

// pendingSQL is each engine's query counting the workflows started and
// not finished.
var pendingSQL = map[string]string{"cogen": cogenPending, "dbos": dbosPending}

// engineModel is each engine's row name.
var engineModel = map[string]string{
	"cogen": "stackless durable runner (pgstore)",
	"dbos":  "DBOS Transact " + dbosVersion,
}

// dbosVersion is the DBOS release go.mod requires.
const dbosVersion = "v1.8.0"

// An engine runs the workload's workflows.
type engine interface {
	// load runs the workflows with seeds 1..w, n steps each, keeping c in
	// flight, and calls done with each one's result (from any goroutine).
	// progress, if not nil, is called after each completion with the
	// number completed so far.
	load(w, c, n int, done func(uint64)) error
	close()
}

// A result is what a worker reports, as JSON on its standard output.
type result struct {
	Engine    string
	Workflows int
	Steps     int     // workflows × steps per workflow
	Seconds   float64 // the load's wall time
	WorkerCPU float64 // the worker process's CPU seconds during the load
	PGCPU     float64 // the server's CPU seconds during the load; -1: unknown
	WAL       int64   // WAL bytes written during the load
	Tables    int64   // growth of the engine's tables during the load
	Xor, Want uint64  // xor of the workflows' results, and what it must be
	Heap      uint64  // HeapInuse after the load
	Xacts     int64   // transactions ended (committed or rolled back) in the database during the load and the engine's close

	// A recovering worker's: workflows found unfinished at its start, the
	// seconds from its start until the first of them finished, and until
	// none was left.
	Recovered      int     `json:",omitempty"`
	FirstSeconds   float64 `json:",omitempty"`
	RecoverSeconds float64 `json:",omitempty"`
}

// workerConfig are a worker's flags.
type workerConfig struct {
	engine  string
	url     string
	n, c, w int
	killAt  int           // print "kill" once this many workflows finished (0: never)
	recover bool          // finish the unfinished workflows and exit
	lease   time.Duration // the cogen runner's lease
	loops   int           // the cogen runner's loops
	conns   int           // the cogen store's conns per loop
	poll    time.Duration // the cogen runner's poll
	profile string        // write a CPU profile of the load to this file
}

func (c workerConfig) args() []string {
	a := []string{"worker", "-engine", c.engine, "-db", c.url, "-n", strconv.Itoa(c.n), "-c", strconv.Itoa(c.c),
		"-w", strconv.Itoa(c.w), "-lease", c.lease.String(),
		"-loops", strconv.Itoa(c.loops), "-conns", strconv.Itoa(c.conns), "-poll", c.poll.String()}
	if c.killAt > 0 {
		a = append(a, "-kill-at", strconv.Itoa(c.killAt))
	}
	if c.recover {
		a = append(a, "-recover")
	}
	if c.profile != "" {
		a = append(a, "-cpuprofile", c.profile)
	}
	return a
}

func openEngine(cfg workerConfig) (engine, string, error) {
	switch cfg.engine {
	case "dbos":
		e, err := launchDBOS(cfg.url)
		return e, dbosSchema, err
	case "cogen":
		e, err := openCogen(cfg)
		return e, cogenSchema, err
	}
	return nil, "", fmt.Errorf("unknown engine %q (engines: %s)", cfg.engine, strings.Join(engineNames, ", "))
}

// worker runs one engine's load in this process and reports it.
func worker(args []string, stdout io.Writer) error {
	start := time.Now()
	fs := flag.NewFlagSet("worker", flag.ExitOnError)
	var cfg workerConfig
	fs.StringVar(&cfg.engine, "engine", "", "engine: "+strings.Join(engineNames, ", "))
	fs.StringVar(&cfg.url, "db", "", "postgres:// URL")
	fs.IntVar(&cfg.n, "n", 10, "steps per workflow")
	fs.IntVar(&cfg.c, "c", 100, "workflows in flight")
	fs.IntVar(&cfg.w, "w", 2000, "workflows")
	fs.IntVar(&cfg.killAt, "kill-at", 0, `print "kill" once this many workflows finished`)
	fs.BoolVar(&cfg.recover, "recover", false, "finish the workflows a killed worker left and exit")
	fs.DurationVar(&cfg.lease, "lease", 2*time.Second, "the cogen runner's lease")
	fs.IntVar(&cfg.loops, "loops", 1, "the cogen runner's loops")
	fs.IntVar(&cfg.conns, "conns", 0, "the cogen store's conns per loop (0: pgstore's default)")
	fs.DurationVar(&cfg.poll, "poll", 0, "the cogen runner's poll for due tasks when idle (0: the runner's default)")
	fs.StringVar(&cfg.profile, "cpuprofile", "", "write a CPU profile of the load to this file")
	fs.Parse(args)
	ctx := context.Background()
	p, err := newProbe(ctx, cfg.url)
	if err != nil {
		return err
	}
	defer p.close()
	schema, ok := engineSchema[cfg.engine]
	if !ok {
		return fmt.Errorf("unknown engine %q (engines: %s)", cfg.engine, strings.Join(engineNames, ", "))
	}
	if cfg.recover {
		return recoverWorker(ctx, cfg, p, start, stdout)
	}
	// Every load starts from an empty schema.
	if err := p.dropSchema(ctx, schema); err != nil {
		return err
	}
	e, _, err := openEngine(cfg)
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			e.close()
		}
	}()
	if err := p.checkpoint(ctx); err != nil {
		return err
	}
	x0, err := p.xacts(ctx)
	if err != nil {
		return err
	}
	s0, err := p.sample(ctx, schema)
	if err != nil {
		return err
	}
	var (
		mu       sync.Mutex
		xor      uint64
		finished atomic.Int64
	)
	if cfg.profile != "" {
		f, err := os.Create(cfg.profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	cpu0 := selfCPU()
	t0 := time.Now()
	err = e.load(cfg.w, cfg.c, cfg.n, func(h uint64) {
		mu.Lock()
		xor ^= h
		mu.Unlock()
		if f := finished.Add(1); cfg.killAt > 0 && f == int64(cfg.killAt) {
			fmt.Fprintln(stdout, "kill")
		}
	})
	d := time.Since(t0)
	cpu1 := selfCPU()
	if cfg.profile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return err
	}
	s1, err := p.sample(ctx, schema)
	if err != nil {
		return err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r := result{
		Engine: cfg.engine, Workflows: cfg.w, Steps: cfg.w * cfg.n,
		Seconds: d.Seconds(), WorkerCPU: cpu1 - cpu0, PGCPU: -1,
		WAL: s1.wal - s0.wal, Tables: s1.tables - s0.tables,
		Xor: xor, Want: expectedXor(cfg.w, cfg.n), Heap: ms.HeapInuse,
	}
	if s0.cpu >= 0 && s1.cpu >= 0 {
		r.PGCPU = s1.cpu - s0.cpu
	}
	// A backend reports its transaction counts when idle for a while or
	// when it exits: the engine's connections are closed first.
	e.close()
	closed = true
	time.Sleep(300 * time.Millisecond)
	x1, err := p.xacts(ctx)
	if err != nil {
		return err
	}
	r.Xacts = x1 - x0
	return json.NewEncoder(stdout).Encode(r)
}

// recoverWorker opens the engine, which resumes the workflows a killed
// worker left, and reports once none is left unfinished.
func recoverWorker(ctx context.Context, cfg workerConfig, p *probe, start time.Time, stdout io.Writer) error {
	left, err := p.count(ctx, pendingSQL[cfg.engine])
	if err != nil {
		return err
	}
	e, _, err := openEngine(cfg)
	if err != nil {
		return err
	}
	defer e.close()
	r := result{Engine: cfg.engine, Recovered: left, PGCPU: -1}
	for {
		n, err := p.count(ctx, pendingSQL[cfg.engine])
		if err != nil {
			return err
		}
		if n < left && r.FirstSeconds == 0 {
			r.FirstSeconds = time.Since(start).Seconds()
		}
		if n == 0 {
			break
		}
		if time.Since(start) > 5*time.Minute {
			return fmt.Errorf("recover: %d workflows still unfinished after %v", n, time.Since(start))
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.RecoverSeconds = time.Since(start).Seconds()
	return json.NewEncoder(stdout).Encode(r)
}

// runWorker runs a worker child to its end and returns its result.
func runWorker(exe string, cfg workerConfig) (result, error) {
	cmd := exec.Command(exe, cfg.args()...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return result{}, fmt.Errorf("worker %s: %w", cfg.engine, err)
	}
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		return result{}, fmt.Errorf("worker %s: %q: %w", cfg.engine, out, err)
	}
	return r, nil
}

// recovery measures the recovery of one engine: a worker runs cfg.w
// workflows and is killed with SIGKILL once a quarter finished; another
// starts at once and finishes those left unfinished. It returns the time
// from the kill until none is left, and the recovering worker's result.
func recovery(exe string, cfg workerConfig) (time.Duration, result, error) {
	cfg.killAt = max(cfg.w/4, 1)
	cmd := exec.Command(exe, cfg.args()...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, result{}, err
	}
	if err := cmd.Start(); err != nil {
		return 0, result{}, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "kill" {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, result{}, fmt.Errorf("recovery %s: worker said %q (%v) instead of kill", cfg.engine, line, err)
	}
	t0 := time.Now()
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	cfg.killAt = 0
	cfg.recover = true
	r, err := runWorker(exe, cfg)
	return time.Since(t0), r, err
}
