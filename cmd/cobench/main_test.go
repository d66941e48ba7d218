//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/bench"
	"github.com/cogen-go/cogen/internal/echoload"
)

func TestMain(m *testing.M) {
	echoload.MaybeRunChild()
	maybeRunChild()
	os.Exit(m.Run())
}

// loadAverage returns the 1-minute load average (0 where /proc has none).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(b), &l)
	return l
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// TestQuick runs `cobench -quick -format=json`: the output parses, every
// group is there with every row valued and a base row per measure, the
// run takes well under the 20 s budget (not checked under -race), and no
// child process, descriptor or goroutine is left behind.
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole quick run")
	}
	t.Setenv("TMPDIR", t.TempDir()) // where the chart goes
	fds, goroutines := openFDs(), runtime.NumGoroutine()
	var stdout, stderr bytes.Buffer
	load0 := loadAverage()
	t0 := time.Now()
	if code := cobench([]string{"-quick", "-format=json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	took := time.Since(t0)
	// 20 s on a quiet machine: 60 s is generous there. On a busy one the
	// run's processes share the cores with everything else, and its wall
	// time grows with the load (61 s at load 15 on 2 cores, beside two CPU
	// hogs): the bound is 60 s times the load per core, when above 1. Under
	// -race the same run took 87 s in CI's dry run (load 15): no bound.
	perCore := max(load0, loadAverage()) / float64(runtime.NumCPU())
	limit := time.Duration(float64(60*time.Second) * max(1, perCore))
	t.Logf("took %v (load per core %.1f, limit %v)", took, perCore, limit)
	if took > limit && !raceEnabled {
		t.Errorf("cobench -quick took %v, over %v", took, limit)
	}
	var rep report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, stdout.String())
	}
	if rep.Machine.CPUs <= 0 || rep.Machine.Go == "" || rep.Command != "go run ./cmd/cobench -quick -format=json" {
		t.Errorf("machine %+v, command %q", rep.Machine, rep.Command)
	}
	seen := map[string]bool{}
	bases := map[string]int{}
	measures := map[string]bool{}
	var skipped []Row
	for _, r := range rep.Rows {
		if r.Skipped {
			if r.Value != 0 || r.Model == "" || r.Measure == "" || !strings.HasPrefix(r.Note, "skipped: ") || r.Base {
				t.Errorf("bad skipped row: %+v", r)
			}
			skipped = append(skipped, r)
			continue
		}
		seen[r.Group] = true
		measures[r.Measure] = true
		if r.Base {
			bases[r.Measure]++
		}
		if !(r.Value > 0) || r.Unit == "" || r.Model == "" || r.Measure == "" {
			t.Errorf("row without a value: %+v", r)
		}
		if r.Base && r.Ratio != 1 {
			t.Errorf("base row with ratio %v: %+v", r.Ratio, r)
		}
	}
	for _, g := range groups {
		if !seen[g] && (g != "db" || haveRedisServer()) && g != "tfb" && g != "durable-pg" { // tfb runs with -only=tfb or -peers, durable-pg with -only
			t.Errorf("no %s rows", g)
		}
	}
	// A full run without -peers says why tfb did not run; -quick, why the
	// go-redis rows are missing.
	if !slices.ContainsFunc(skipped, func(r Row) bool { return r.Group == "tfb" && strings.Contains(r.Note, "-peers or -only=tfb") }) {
		t.Errorf("no skipped tfb row: %+v", skipped)
	}
	if haveRedisServer() && !slices.ContainsFunc(skipped, func(r Row) bool { return r.Group == "db" && r.Model == "go-redis goroutines" }) {
		t.Errorf("no skipped go-redis row: %+v", skipped)
	}
	if !strings.HasPrefix(rep.Overall, "Overall: best is ") {
		t.Errorf("overall %q", rep.Overall)
	}
	for m := range measures {
		if bases[m] != 1 {
			t.Errorf("measure %q has %d base rows", m, bases[m])
		}
	}
	// Every model of every group is there.
	for _, want := range []struct{ group, model string }{
		{"switch", "stackful Resume+Yield"}, {"switch", "stackless Gosched via ready queue"},
		{"switch", "iter.Pull next+yield"}, {"switch", "goroutine + chan ping-pong"}, {"switch", "plain func call (floor)"},
		{"create", "stackful default"}, {"create", "stackful private128K"}, {"create", "stackful shared"},
		{"create", "stackless"}, {"create", "goroutine"},
		{"memory", "stackful/default"}, {"memory", "stackless/echo"}, {"memory", "goroutine"},
		{"chan", "stackless (cosync.Chan, generated frames)"}, {"chan", "goroutine (Go chan)"},
		{"timers", "time.AfterFunc + Stop"}, {"timers", "stackless"}, {"timers", "goroutine (time.Sleep)"},
		{"timers", "time.Sleep"},
		{"echo", "stackful"}, {"echo", "stackless (generated EchoFrame)"}, {"echo", "goroutine per conn (Go net)"},
		{"http", "stackful (conet net.Conn)"}, {"http", "stackful (Co.Read/Co.Write)"}, {"http", "net/http"},
		{"http", "stackful (cohttp server, its //co:stackless source)"}, {"http", "stackless (cohttp server, generated frames)"},
		{"http", "stackful (cohttp, WaitHandler run on the coroutine)"}, {"http", "stackless (cohttp, WaitHandler's generated frame)"},
		{"http", "net/http (time.Sleep in the handler)"},
		{"durable", "stackless Snapshot"}, {"durable", "stackless Restore (scheduled on a loop)"},
		{"durable", "stackless Snapshot + write + fsync"}, {"durable", "stackless read + Restore (every task then run and checked)"},
		{"scale", "stackless (Group.Serve, generated EchoFrame), 1 loop"}, {"scale", "net/http, GOMAXPROCS=1"}, {"scale", "stackful (Group.ServeTCP, Echo)"},
	} {
		if !slices.ContainsFunc(rep.Rows, func(r Row) bool { return r.Group == want.group && r.Model == want.model }) {
			t.Errorf("no %s row for %s", want.group, want.model)
		}
	}
	if !strings.Contains(stderr.String(), "cobench: done in") {
		t.Errorf("no progress on stderr:\n%s", stderr.String())
	}
	// Every phase says when it starts and when it ends.
	for _, ph := range []string{"micro benchmarks (switch, create, timers, chan, durable: ", "durable", "timers (sleepers, lateness)", "memory", "echo", "http", "scale", "db"} {
		for _, re := range []string{`(?m)^cobench: +\d+\.\ds ` + regexp.QuoteMeta(ph) + `.*: started$`, `(?m)^cobench: +\d+\.\ds ` + regexp.QuoteMeta(ph) + `.*: finished in \d+\.\ds, \d+ rows`} {
			if !regexp.MustCompile(re).MatchString(stderr.String()) {
				t.Errorf("no progress line matching %s:\n%s", re, stderr.String())
			}
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for openFDs() > fds || runtime.NumGoroutine() > goroutines {
		if time.Now().After(deadline) {
			t.Fatalf("fds %d -> %d, goroutines %d -> %d", fds, openFDs(), goroutines, runtime.NumGoroutine())
		}
		time.Sleep(time.Millisecond)
	}
	if kids := children(t); len(kids) > 0 {
		t.Fatalf("child processes left: %v", kids)
	}
}

// children lists the processes whose parent is this one.
func children(t *testing.T) []string {
	t.Helper()
	self := os.Getpid()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var kids []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at the last ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(self) {
			kids = append(kids, e.Name())
		}
	}
	return kids
}

// TestFormats: markdown, csv and the SVG chart are written where -o and
// -svg say, for a run limited with -only.
func TestFormats(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"markdown", "csv"} {
		out := filepath.Join(dir, "table."+format)
		svg := filepath.Join(dir, "chart.svg")
		var stdout, stderr bytes.Buffer
		code := cobench([]string{"-quick", "-only=switch,timers", "-format=" + format, "-o", out, "-svg", svg}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("-o given, yet stdout got %q", stdout.String())
		}
		table, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(table)), "\n")
		switch format {
		case "markdown":
			// The machine line, warnings if any, the baseline convention,
			// the table, then the verdict: a line per group.
			head := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "| group | measure |") })
			if !strings.HasPrefix(lines[0], "Measured ") || head < 0 || lines[head-2] != baseConvention {
				t.Fatalf("markdown:\n%s", table)
			}
			end := head + slices.Index(lines[head:], "")
			if end < head {
				t.Fatalf("no verdict after the table:\n%s", table)
			}
			for _, l := range lines[head+2 : end] {
				if strings.Count(l, " | ")+2 != 9 || !strings.HasSuffix(l, "|") {
					t.Errorf("bad table line %q", l)
				}
			}
			if last := lines[len(lines)-1]; !regexp.MustCompile(`^\*\*Overall: best is (stackless|stackful|Go|peer|the loop \(both models\)) in [12] of 2 groups \((switch|timers) [0-9.]+×`).MatchString(last) {
				t.Errorf("the table does not end with the overall line: %q", last)
			}
			if !strings.Contains(string(table), "- **switch** (switch round trip; lower is better): **") ||
				!strings.Contains(string(table), "- **timers** (timer add + cancel; lower is better): **") {
				t.Errorf("no verdict line for switch and timers:\n%s", table)
			}
			if strings.Contains(string(table), "| memory |") {
				t.Error("-only=switch,timers ran memory")
			}
		case "csv":
			if lines[0] != "group,measure,model,value,unit,ratio,base,reference,note" || len(lines) < 10 {
				t.Fatalf("csv:\n%s", table)
			}
		}
		chart, err := os.ReadFile(svg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(chart, []byte("<svg ")) || !bytes.HasSuffix(chart, []byte("</svg>\n")) || !bytes.Contains(chart, []byte("switch round trip")) {
			t.Fatalf("svg:\n%s", chart)
		}
	}
}

// TestUsage: bad flags exit with status 2 and say why.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-only=nonsense"}, {"-format=xml"}, {"-quick", "-long"}, {"extra"}, {"-memn=-1"},
	} {
		var stdout, stderr bytes.Buffer
		if code := cobench(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// TestBinary builds cobench and runs it as a user would, on a small group:
// the child processes it starts are the binary itself.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	exe := filepath.Join(t.TempDir(), "cobench")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(exe, "-quick", "-only=memory", "-memn=2000", "-format=json", "-svg=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var rep report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	if want := len(bench.MemoryModes) + len(bench.IdleModels); len(rep.Rows) != want {
		t.Fatalf("%d memory rows, want %d", len(rep.Rows), want)
	}
	for i, r := range rep.Rows {
		count := "2,000"
		if i >= len(bench.MemoryModes) {
			count = "1,000" // the idle connections of -quick
		}
		if r.Value < 100 || !strings.Contains(r.Measure, count) {
			t.Errorf("%+v", r)
		}
	}
}

// TestChildFailures: a child that fails is retried once and its error
// explained; a child that overruns its limit is stopped with SIGQUIT, and
// its goroutine dump kept in a file.
func TestChildFailures(t *testing.T) {
	var log bytes.Buffer
	p := newProgress(&log)
	var res struct{}
	retried, err := runChildRetry(p, task{Kind: "nonsense"}, 30*time.Second, &res)
	if err == nil || !strings.Contains(err.Error(), `unknown task "nonsense"`) || !retried {
		t.Fatalf("error %v, retried %v", err, retried)
	}
	if n := retryNote(0, 3); n != "" {
		t.Fatalf("note of a row never retried: %q", n)
	}
	if n := retryNote(1, 3); !strings.Contains(n, "RETRIED: 1 of 3 windows") {
		t.Fatalf("note of a retried row: %q", n)
	}
	if strings.Count(log.String(), "retrying in a fresh process") != 1 {
		t.Fatalf("progress:\n%s", log.String())
	}

	t0 := time.Now()
	err = runChild(task{Kind: "sleep", Mode: "goroutine", N: 1, D: time.Minute}, time.Second, &res)
	if err == nil || !strings.Contains(err.Error(), "stopped after 1s") || !strings.Contains(err.Error(), "SIGQUIT") {
		t.Fatalf("error %v", err)
	}
	if time.Since(t0) > 30*time.Second {
		t.Fatalf("stopping the child took %v", time.Since(t0))
	}
	_, path, ok := strings.Cut(err.Error(), "all of its stderr is in ")
	if !ok {
		t.Fatalf("no dump file in %v", err)
	}
	path = strings.TrimSuffix(path, ")")
	defer os.Remove(path)
	dump, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(dump, []byte("goroutine ")) {
		t.Fatalf("dump %q: %v", dump, err)
	}
}

// TestChildHangDump: a child that overruns its limit is stopped with
// SIGQUIT and leaves what its loops wait for and its goroutines in the
// error (or in the file the error names).
func TestChildHangDump(t *testing.T) {
	err := runChild(task{Kind: "hang", Mode: "test"}, 2*time.Second, new(any))
	if err == nil {
		t.Fatal("a hanging child succeeded")
	}
	msg := err.Error()
	if i := strings.Index(msg, "all of its stderr is in "); i >= 0 {
		path := strings.TrimSuffix(strings.TrimSpace(msg[i+len("all of its stderr is in "):]), ")")
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		os.Remove(path)
		msg += string(b)
	}
	for _, want := range []string{"stopped after 2s", "1 open event loops", "the hang task's sleeper: parked, deadline in", "goroutine "} {
		if !strings.Contains(msg, want) {
			t.Errorf("the hang report lacks %q:\n%s", want, msg)
		}
	}
}
