//go:build unix

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/echoload"
)

func main() {
	echoload.MaybeRunChild()
	maybeRunChild()
	log.SetFlags(0)
	log.SetPrefix("cobench: ")
	os.Exit(cobench(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command line's.
type options struct {
	quick, long bool
	peers       bool // add the peers' rows (bench/peers: gnet, netpoll, nbio, fasthttp, nbhttp)
	coroswitch  bool // add the stackful rows of a cogen_coroswitch build
	wrk         bool // serve the http group's hello load with wrk too (wrk.go)
	only        map[string]bool
	format      string
	out, svg    string
	memN        int
	args        []string
	progress    *progress
}

// parseFlags parses args; usage and errors go to stderr.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{args: args}
	fs := flag.NewFlagSet("cobench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.quick, "quick", false, "a short run (about 20 s once built): fewer coroutines, short windows")
	fs.BoolVar(&o.long, "long", false, "longer windows, more rounds, 1,000,000 coroutines for memory")
	only := fs.String("only", "", "comma-separated groups to run: "+strings.Join(groups, ","))
	fs.BoolVar(&o.peers, "peers", false, "also measure the peers (gnet, netpoll, nbio echo; fasthttp, nbhttp hello), built from bench/peers")
	fs.BoolVar(&o.coroswitch, "coroswitch", false, "also measure the stackful switch and create rows in a build with the cogen_coroswitch tag (built from the source tree)")
	fs.BoolVar(&o.wrk, "wrk", false, "also serve the HTTP hello load (and the tfb group's workloads) with wrk, TechEmpower's load generator (Debian's package wrk), as the client")
	fs.StringVar(&o.format, "format", "markdown", "output format: markdown, json or csv")
	fs.StringVar(&o.out, "o", "", "write the table to this file instead of standard output")
	fs.StringVar(&o.svg, "svg", defaultSVG(), "write a bar chart of every measure, with axes, to this SVG file (off: no chart)")
	fs.IntVar(&o.memN, "memn", 0, "suspended coroutines per memory row (default 100,000; 10,000 with -quick; 1,000,000 with -long)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cobench [flags]\n\nMeasures the coroutine models side by side and prints a table.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.quick && o.long {
		return nil, errors.New("-quick and -long exclude each other")
	}
	switch o.format {
	case "markdown", "json", "csv":
	default:
		return nil, fmt.Errorf("unknown format %q (markdown, json or csv)", o.format)
	}
	if o.memN < 0 {
		return nil, errors.New("-memn must be positive")
	}
	if *only != "" {
		o.only = map[string]bool{}
		for g := range strings.SplitSeq(*only, ",") {
			g = strings.TrimSpace(g)
			if !slices.Contains(groups, g) {
				return nil, fmt.Errorf("unknown group %q in -only (groups: %s)", g, strings.Join(groups, ","))
			}
			o.only[g] = true
		}
	}
	return o, nil
}

// cobench runs the command with args and returns its exit status.
func cobench(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "cobench:", err)
		return 2
	}
	o.progress = newProgress(stderr)
	rep, err := measure(o)
	if err != nil {
		fmt.Fprintln(stderr, "cobench:", err)
		return 1
	}
	if err := writeOutputs(o, rep, stdout); err != nil {
		fmt.Fprintln(stderr, "cobench:", err)
		return 1
	}
	return 0
}

// A report is a run's table with where and how it was measured.
type report struct {
	Machine machine `json:"machine"`
	Command string  `json:"command"`
	Seconds float64 `json:"seconds"` // how long the run took
	Rows    []Row   `json:"rows"`
	// Warnings say what makes the figures suspect (an overloaded machine, a
	// slow floor, retried windows); Verdict is the closing summary, a line
	// per group, and Overall its one-line answer (overall).
	Warnings []string  `json:"warnings,omitempty"`
	Verdict  []Verdict `json:"verdict"`
	Overall  string    `json:"overall"`
}

// machine describes where a run was measured.
type machine struct {
	Date    string `json:"date"`
	CPUs    int    `json:"cpus"`
	Model   string `json:"model"`
	Go      string `json:"go"`
	OSArch  string `json:"os_arch"`
	LoadAvg string `json:"load_avg"` // 1, 5 and 15 minutes, at the start of the run
}

func measure(o *options) (*report, error) {
	rep := &report{
		Machine: currentMachine(),
		Command: strings.TrimSpace("go run ./cmd/cobench " + strings.Join(o.args, " ")),
	}
	t0 := time.Now()
	rows, err := run(o)
	if err != nil {
		return nil, err
	}
	rep.Rows = rows
	rep.Seconds = time.Since(t0).Seconds()
	rep.Warnings = warnings(rep)
	rep.Verdict = verdicts(rep)
	rep.Overall = overall(rep.Verdict)
	o.progress.done(rep.Seconds)
	for _, w := range rep.Warnings {
		o.progress.note("%s", w)
	}
	return rep, nil
}

func currentMachine() machine {
	m := machine{
		Date:   time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		CPUs:   runtime.NumCPU(),
		Model:  "unknown",
		Go:     runtime.Version(),
		OSArch: runtime.GOOS + "/" + runtime.GOARCH,
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.Model = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}

// writeOutputs writes the table in o's format to o.out or stdout, and the
// chart to o.svg.
func writeOutputs(o *options, rep *report, stdout io.Writer) error {
	var sb strings.Builder
	switch o.format {
	case "json":
		writeJSON(&sb, rep)
	case "csv":
		writeCSV(&sb, rep)
	default:
		writeMarkdown(&sb, rep)
	}
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(sb.String()), 0o644); err != nil {
			return err
		}
		if o.progress != nil {
			fmt.Fprintf(o.progress.w, "cobench: table written to %s\n", o.out)
		}
	} else if _, err := io.WriteString(stdout, sb.String()); err != nil {
		return err
	}
	// The one-line answer where the user looks: the markdown table on the
	// terminal ends with it, other outputs leave it to stderr.
	if o.progress != nil && (o.out != "" || o.format != "markdown") {
		fmt.Fprintf(o.progress.w, "cobench: %s\n", rep.Overall)
	}
	if o.svg == "" || o.svg == "off" {
		return nil
	}
	if err := os.WriteFile(o.svg, []byte(chartSVG(rep)), 0o644); err != nil {
		return fmt.Errorf("-svg: %w", err)
	}
	if o.progress != nil {
		fmt.Fprintf(o.progress.w, "cobench: chart written to %s (-svg=PATH to choose, -svg=off for none)\n", o.svg)
	}
	return nil
}

// defaultSVG is where the chart goes without -svg: the temporary directory,
// so that a run in the source tree leaves no file behind.
func defaultSVG() string { return filepath.Join(os.TempDir(), "cobench.svg") }

// setBenchtime sets the benchtime testing.Benchmark uses and returns the
// function that restores it.
func setBenchtime(d time.Duration) (restore func(), err error) {
	testing.Init()
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return nil, errors.New("testing registered no test.benchtime flag")
	}
	old := f.Value.String()
	if err := f.Value.Set(d.String()); err != nil {
		return nil, err
	}
	return func() { f.Value.Set(old) }, nil
}

// progress reports on standard error what the run is doing. On a terminal a
// long step shows a line with its elapsed time, rewritten in place;
// elsewhere a long step prints a line every 10 seconds.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	start time.Time
	last  string
	every time.Duration // between "still running" lines; 0: 10 s (250 ms on a terminal)
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// step announces the next step.
func (p *progress) step(format string, args ...any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = fmt.Sprintf(format, args...)
	fmt.Fprintf(p.w, "cobench: %5.1fs %s\n", time.Since(p.start).Seconds(), p.last)
}

// begin announces a phase of the run (a group, a build) and returns the
// function that reports its end: the time it took, the rows it measured and
// skipped, or its error.
func (p *progress) begin(name string) (end func(rows []Row, err error)) {
	if p == nil {
		return func([]Row, error) {}
	}
	p.step("%s: started", name)
	p.mu.Lock()
	p.last = name // what a long step's "still running" line names
	p.mu.Unlock()
	t0 := time.Now()
	return func(rows []Row, err error) {
		took := time.Since(t0).Seconds()
		if err != nil {
			p.step("%s: failed after %.1fs", name, took)
			return
		}
		measured, skipped := 0, []string{}
		for _, r := range rows {
			if r.Skipped {
				skipped = append(skipped, r.Note)
			} else {
				measured++
			}
		}
		msg := fmt.Sprintf("%s: finished in %.1fs", name, took)
		if rows != nil {
			msg += fmt.Sprintf(", %d rows", measured)
		}
		if len(skipped) > 0 {
			msg += fmt.Sprintf(", %d skipped (%s)", len(skipped), strings.Join(slices.Compact(skipped), "; "))
		}
		p.step("%s", msg)
	}
}

// note reports something that went wrong but did not stop the run.
func (p *progress) note(format string, args ...any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "cobench: %5.1fs warning: %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
}

// during runs fn, the body of a long step, showing its progress.
func (p *progress) during(fn func() error) error {
	if p == nil {
		return fn()
	}
	t0 := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		every := 10 * time.Second
		switch {
		case p.every > 0:
			every = p.every
		case p.tty:
			every = 250 * time.Millisecond
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				if p.tty {
					fmt.Fprint(p.w, "\r\033[K")
				}
				return
			case <-tick.C:
				p.mu.Lock()
				if p.tty {
					fmt.Fprintf(p.w, "\r\033[K         ... %s: %.1fs", p.last, time.Since(t0).Seconds())
				} else {
					fmt.Fprintf(p.w, "cobench: %5.1fs ... still running %s (%.0fs)\n", time.Since(p.start).Seconds(), p.last, time.Since(t0).Seconds())
				}
				p.mu.Unlock()
			}
		}
	}()
	err := fn()
	close(stop)
	wg.Wait()
	return err
}

// done reports the end of the run.
func (p *progress) done(seconds float64) {
	if p == nil {
		return
	}
	fmt.Fprintf(p.w, "cobench: done in %.1fs\n", seconds)
}
