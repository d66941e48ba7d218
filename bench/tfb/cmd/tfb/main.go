// Command tfb serves and measures TechEmpower's six test types against
// PostgreSQL with the servers of package tfb, one server at a time in a
// child process, so that each server's CPU is its own:
//
//	tfb bench [-db url] [-servers list] [-tests list] [-uring list] [-d 2s] [-conns 256] [-wrk] [-json]
//	tfb validate [-db url] [-servers list]
//	tfb serve -server name -db url
//
// The database is -db, else COGEN_PG_URL, else a throwaway PostgreSQL that
// tfb starts (initdb in a temporary directory) when one is installed. The
// world and fortune tables are created when missing. cmd/cobench's tfb
// group runs tfb bench -json and shows its rows.
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
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cogen-go/cogen/bench/tfb"
	"github.com/cogen-go/cogen/internal/pgserver"
	"github.com/cogen-go/cogen/runtime/loop"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("tfb: ")
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "serve":
		serve(os.Args[2:])
	case "bench":
		bench(os.Args[2:], false)
	case "validate":
		bench(os.Args[2:], true)
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: tfb bench|validate [-db url] [-servers list] ... | tfb serve -server name -db url")
	os.Exit(2)
}

// serve runs one server until its standard input closes (the parent's
// end) or a signal, after printing its address.
func serve(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	server := fs.String("server", "", "server: "+strings.Join(tfb.Servers, ", "))
	db := fs.String("db", "", "postgres:// URL")
	pool := fs.Int("pool", tfb.DefaultPool, "database conns")
	fs.Parse(args)
	r, err := tfb.Serve(*server, *db, *pool)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("addr %s\n", r.Addr)
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-done:
	case <-sig:
	}
	if err := r.Stop(); err != nil {
		log.Fatal(err)
	}
}

// A workload is one test type with its parameters.
type workload struct {
	name     string
	path     string
	pipeline int
	db       bool
}

var workloads = []workload{
	{"json", "/json", 1, false},
	{"db", "/db", 1, true},
	{"queries=1", "/queries?queries=1", 1, true},
	{"queries=20", "/queries?queries=20", 1, true},
	{"queries=500", "/queries?queries=500", 1, true},
	{"fortunes", "/fortunes", 1, true},
	{"updates=20", "/updates?queries=20", 1, true},
	{"plaintext", "/plaintext", 16, false},
}

// Row is cmd/cobench's row.
type Row struct {
	Group   string  `json:"group"`
	Measure string  `json:"measure"`
	Model   string  `json:"model"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
	Base    bool    `json:"base,omitempty"`
	Note    string  `json:"note,omitempty"`
}

func bench(args []string, validateOnly bool) {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	db := fs.String("db", os.Getenv("COGEN_PG_URL"), "postgres:// URL (default $COGEN_PG_URL, else a throwaway server)")
	servers := fs.String("servers", strings.Join(tfb.Servers, ","), "servers, comma-separated")
	tests := fs.String("tests", "", "workloads, comma-separated (default all: json, db, queries=1, queries=20, queries=500, fortunes, updates=20, plaintext)")
	d := fs.Duration("d", 2*time.Second, "measured window per workload and server")
	warm := fs.Duration("warmup", 500*time.Millisecond, "warm-up before each window")
	conns := fs.Int("conns", 256, "connections")
	plainConns := fs.Int("plaintext-conns", 16384, "connections of the plaintext test (bounded by the fd limit)")
	pool := fs.Int("pool", tfb.DefaultPool, "database conns of every server")
	asJSON := fs.Bool("json", false, "print cobench rows as JSON lines")
	uring := fs.String("uring", "", "servers (comma-separated) also measured with their loops on io_uring ("+loop.BackendEnv+"=uring), on the tests without a database (json, plaintext); rows named \"<server>"+uringName+"\"")
	useWrk := fs.Bool("wrk", false, "after each window of the built-in client, run the workload again with wrk (TechEmpower's load generator, Debian's package wrk) and report both (wrk.go)")
	fs.Parse(args)

	url := *db
	if url == "" {
		pg, err := pgserver.Start("fsync=off", "synchronous_commit=off")
		if errors.Is(err, pgserver.ErrNotInstalled) {
			fmt.Fprintln(os.Stderr, "tfb: skipped:", err)
			os.Exit(3)
		}
		if err != nil {
			log.Fatal(err)
		}
		defer pg.Stop()
		url = pg.URL
	}
	if err := tfb.Setup(context.Background(), url); err != nil {
		log.Fatal(err)
	}
	names := strings.Split(*servers, ",")
	var wls []workload
	for _, w := range workloads {
		if *tests == "" || slices.Contains(strings.Split(*tests, ","), w.name) {
			wls = append(wls, w)
		}
	}
	*plainConns = min(*plainConns, fdRoom())
	failed := false
	runs := names // a name with uringName runs on io_uring
	for _, name := range strings.Split(*uring, ",") {
		if name != "" {
			runs = append(runs, name+uringName)
		}
	}
	for _, name := range runs {
		if validateOnly && strings.HasSuffix(name, uringName) {
			continue
		}
		child, addr, err := startChild(name, url, *pool)
		if err != nil {
			log.Fatal(err)
		}
		if validateOnly {
			for _, err := range tfb.Validate(addr, url) {
				log.Printf("%s: %v", name, err)
				failed = true
			}
			if !failed {
				fmt.Printf("%s: valid\n", name)
			}
			stopChild(child)
			continue
		}
		for _, w := range wls {
			if w.db && strings.HasSuffix(name, uringName) {
				continue
			}
			n := *conns
			if w.name == "plaintext" {
				n = *plainConns
			}
			cpu0, _ := tfb.ProcessCPU(child.Process.Pid)
			io0, _ := tfb.ProcessIO(child.Process.Pid)
			db0 := tfb.DatabaseCPU()
			r, err := tfb.Load(tfb.LoadConfig{Addr: addr, Path: w.path, Conns: n, Pipeline: w.pipeline, Warmup: *warm, Duration: *d})
			cpu1, _ := tfb.ProcessCPU(child.Process.Pid)
			io1, _ := tfb.ProcessIO(child.Process.Pid)
			db1 := tfb.DatabaseCPU()
			if err != nil {
				log.Printf("%s %s: %v", name, w.name, err)
				failed = true
				continue
			}
			// The CPU was read over warm-up and window: scale it to the
			// window by the requests' share of the time.
			share := float64(*d) / float64(*d+*warm)
			// The read(2) and write(2) calls per request say whether the
			// server served in the loop's completion mode (io_uring: none).
			syscalls := float64(io1-io0) / float64(max(r.Requests, 1))
			report(*asJSON, name, w, n, r, float64(cpu1-cpu0)*share, float64(db1-db0)*share, syscalls)
			if *useWrk {
				// wrk's failure costs its rows, not the built-in ones.
				if err := runWrk(*asJSON, name, w, n, addr, child.Process.Pid, *d, r, float64(cpu1-cpu0)*share); err != nil {
					log.Printf("%s %s: wrk: no rows: %v", name, w.name, err)
				}
			}
		}
		stopChild(child)
	}
	if failed {
		os.Exit(1)
	}
}

// fdRoom returns how many connections the load can open in this process
// (its server child has the same limit): the soft limit raised to the hard
// one, less a margin.
func fdRoom() int {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 1000
	}
	lim.Cur = lim.Max
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	return max(int(lim.Cur)-200, 100)
}

// uringName ends the name of a server run with its loops on io_uring, as
// cmd/cobench names its io_uring rows.
const uringName = ", io_uring"

func report(asJSON bool, server string, w workload, conns int, r tfb.LoadResult, serverCPU, dbCPU, syscalls float64) {
	per := func(cpu float64) float64 { return cpu / float64(time.Microsecond) / float64(max(r.Requests, 1)) }
	measure := fmt.Sprintf("%s, %d conns", w.name, conns)
	if w.pipeline > 1 {
		measure += fmt.Sprintf(", pipelined %d deep", w.pipeline)
	}
	rows := []Row{
		{Measure: measure + ": requests per second", Value: float64(r.Requests) / r.Elapsed.Seconds(), Unit: "req/s"},
		{Measure: measure + ": server CPU per request", Value: per(serverCPU), Unit: "µs",
			Note: fmt.Sprintf("%.2f read(2)/write(2) calls per request", syscalls)},
		{Measure: measure + ": p99 latency", Value: float64(r.P99) / float64(time.Millisecond), Unit: "ms"},
	}
	if w.db {
		rows = append(rows, Row{Measure: measure + ": database CPU per request", Value: per(dbCPU), Unit: "µs"})
	}
	for _, row := range rows {
		row.Group, row.Model, row.Base = "tfb", server, server == tfb.CohttpStackless
		if asJSON {
			b, _ := json.Marshal(row)
			fmt.Println(string(b))
		} else {
			fmt.Printf("%-22s %-58s %12.2f %s", server, row.Measure, row.Value, row.Unit)
			if row.Note != "" {
				fmt.Printf(" (%s)", row.Note)
			}
			fmt.Println()
		}
	}
}

// startChild runs this binary's serve command for the server and returns
// it with its address.
func startChild(server, url string, pool int) (*exec.Cmd, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	server, uring := strings.CutSuffix(server, uringName)
	cmd := exec.Command(exe, "serve", "-server", server, "-db", url, "-pool", fmt.Sprint(pool))
	if uring {
		cmd.Env = append(os.Environ(), loop.BackendEnv+"=uring")
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "addr ")
	if err != nil || !ok {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, "", fmt.Errorf("%s: no address from the server (%q, %v)", server, line, err)
	}
	children[cmd] = stdin
	return cmd, addr, nil
}

// children holds each running child's standard input: closing it ends
// the child.
var children = map[*exec.Cmd]io.Closer{}

// stopChild closes the child's standard input, which ends it, and waits.
func stopChild(cmd *exec.Cmd) {
	children[cmd].Close()
	delete(children, cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			log.Printf("server %v: %v", cmd.Args[3], err)
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}
