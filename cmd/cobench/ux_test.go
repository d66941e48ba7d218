//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestProgressPhases: a phase prints a started line and a finished line
// with its elapsed time, its rows and its skipped rows' reasons; a failed
// phase says so.
func TestProgressPhases(t *testing.T) {
	var log bytes.Buffer
	p := newProgress(&log)
	end := p.begin("build dbload from client/gate")
	end(nil, nil)
	end = p.begin("db")
	end([]Row{{Model: "resp stackful"}, skipRow("db", "GET", "no redis-server")}, nil)
	end = p.begin("echo")
	end(nil, errors.New("boom"))
	for _, re := range []string{
		`(?m)^cobench: +\d+\.\ds build dbload from client/gate: started$`,
		`(?m)^cobench: +\d+\.\ds build dbload from client/gate: finished in \d+\.\ds$`,
		`(?m)^cobench: +\d+\.\ds db: started$`,
		`(?m)^cobench: +\d+\.\ds db: finished in \d+\.\ds, 1 rows, 1 skipped \(skipped: no redis-server\)$`,
		`(?m)^cobench: +\d+\.\ds echo: failed after \d+\.\ds$`,
	} {
		if !regexp.MustCompile(re).MatchString(log.String()) {
			t.Errorf("no line matching %s in the progress log:\n%s", re, log.String())
		}
	}
}

// TestProgressDuring: a long step (a build) prints a line naming it, with
// its elapsed time, while it runs.
func TestProgressDuring(t *testing.T) {
	var log bytes.Buffer
	p := newProgress(&log)
	p.every = 5 * time.Millisecond
	end := p.begin("build dbload from client/gate/cmd/dbload (go-redis)")
	p.during(func() error {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			p.mu.Lock()
			seen := strings.Contains(log.String(), "still running")
			p.mu.Unlock()
			if seen {
				break
			}
		}
		return nil
	})
	end(nil, nil)
	re := `(?m)^cobench: +\d+\.\ds \.\.\. still running build dbload from client/gate/cmd/dbload \(go-redis\) \(\d+s\)$`
	if !regexp.MustCompile(re).MatchString(log.String()) {
		t.Errorf("no line matching %s:\n%s", re, log.String())
	}
}

// TestSkippedGroup: with no redis-server to start, the db group is a row of
// the table that says why it was not measured, the progress log announces
// the group's start and end, and the row is never a base or a verdict.
func TestSkippedGroup(t *testing.T) {
	t.Setenv("COGEN_REDIS_SERVER", "")
	t.Setenv("PATH", t.TempDir()) // no redis-server on it
	var stdout, stderr bytes.Buffer
	if code := cobench([]string{"-quick", "-only=db", "-svg=off"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	row := "| db | GET round trips against redis-server | (not measured) | — |  |  |  | skipped: no redis-server installed (apt-get install redis-server, or set COGEN_REDIS_SERVER) |"
	if !strings.Contains(stdout.String(), row+"\n") {
		t.Errorf("no skipped row %q in the table:\n%s", row, stdout.String())
	}
	for _, want := range []string{"db: started\n", "db: finished in ", ", 0 rows, 1 skipped (skipped: no redis-server installed"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no %q in the progress log:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stdout.String(), "- **db**") {
		t.Errorf("a verdict for a group that was not measured:\n%s", stdout.String())
	}
}

// TestOverall: the one-line answer names the family best in the most
// groups first, with each group's lead over the next-best family and "~"
// for a lead within noise; io_uring against epoll is not a model family.
func TestOverall(t *testing.T) {
	rows := append(rowsOf(),
		Row{Group: "memory", Measure: "memory per suspended coroutine", Model: "stackful/shared", Value: 500, Unit: "B"},
		Row{Group: "memory", Measure: "memory per suspended coroutine", Model: "goroutine", Value: 2000, Unit: "B"},
		Row{Group: "echo", Measure: "echo 100 conns: requests/s", Model: "stackless (generated EchoFrame)" + uringName, Value: 1600, Unit: "req/s"},
	)
	rep := &report{Machine: machine{CPUs: 2, LoadAvg: "0.50 0.40 0.30"}, Rows: rows}
	setRatios(rep.Rows)
	got := overall(verdicts(rep))
	want := "Overall: best is stackless in 3 of 4 groups (switch 7.00×, chan 1.05× ~, echo 1.14×); stackful in 1 (memory 4.00×) — × is the lead over the next-best model family on the group's headline measure (the verdict lines), ~ within this run's noise."
	if got != want {
		t.Errorf("overall:\n got %s\nwant %s", got, want)
	}
	if got := overall(nil); !strings.HasPrefix(got, "Overall: no group") {
		t.Errorf("overall of nothing: %s", got)
	}
}

// TestChartAxes: each measured block of the chart has a value axis with
// ticks, their labels and the unit (log scale said), a category axis, and
// a skipped row shows its reason instead of a bar.
func TestChartAxes(t *testing.T) {
	rows := append(rowsOf(), skipRow("db", "GET round trips against redis-server", "no redis-server installed"))
	rep := &report{Machine: machine{CPUs: 2, LoadAvg: "0.5 0.5 0.5"}, Rows: rows}
	setRatios(rep.Rows)
	rep.Verdict = verdicts(rep)
	rep.Overall = overall(rep.Verdict)
	svg := chartSVG(rep)
	if n := strings.Count(svg, `<g class="x-axis"`); n != 3 {
		t.Errorf("%d value axes, want one per measured measure (3)", n)
	}
	if n := strings.Count(svg, `<line class="y-axis"`); n != 4 {
		t.Errorf("%d category axes, want one per block (4)", n)
	}
	tickLabels := regexp.MustCompile(`<text class="tick-label"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1)
	var got []string
	for _, m := range tickLabels {
		got = append(got, m[1])
	}
	// switch: 1 to 260 ns on a log scale; chan: 95 to 100 ns, linear;
	// echo: up to 1,500 req/s, linear.
	want := "1 2 5 10 20 50 100 200 | 0 20 40 60 80 100 | 0 500 1000 1500"
	if g := strings.Join(got, " "); strings.ReplaceAll(want, "| ", "") != g {
		t.Errorf("tick labels %q, want %q", g, want)
	}
	if n := strings.Count(svg, `<line class="tick"`); n != len(got) {
		t.Errorf("%d tick marks for %d labels", n, len(got))
	}
	for _, unit := range []string{">ns/op (log)</text>", ">ns/op</text>", ">req/s</text>"} {
		if !strings.Contains(svg, `class="axis-unit"`) || !strings.Contains(svg, unit) {
			t.Errorf("no axis unit %q", unit)
		}
	}
	for _, want := range []string{"GET round trips against redis-server (not measured)", ">skipped: no redis-server installed</text>", ">Overall: best is stackless in 3 of 3 groups"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
}

// TestChartByDefault: without -svg the chart is written to the temporary
// directory and its path printed; -svg=off writes none. The overall line
// ends a markdown table, and goes to stderr with another format.
func TestChartByDefault(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	var stdout, stderr bytes.Buffer
	if code := cobench([]string{"-quick", "-only=switch"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	path := filepath.Join(dir, "cobench.svg")
	chart, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(chart, []byte(`<g class="x-axis"`)) {
		t.Fatalf("no chart with axes at %s: %v", path, err)
	}
	if !strings.Contains(stderr.String(), "cobench: chart written to "+path+" (") {
		t.Errorf("the chart's path is not printed:\n%s", stderr.String())
	}
	if strings.Contains(stderr.String(), "cobench: Overall: ") || !strings.Contains(stdout.String(), "\n**Overall: best is ") {
		t.Errorf("markdown on stdout: the overall line belongs at the table's end, not on stderr:\n%s", stderr.String())
	}
	os.Remove(path)
	stderr.Reset()
	if code := cobench([]string{"-quick", "-only=switch", "-svg=off", "-format=csv"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	// The winner is not asserted: under -race goroutines can win the switch group.
	if !strings.Contains(stderr.String(), "cobench: Overall: best is ") || !strings.Contains(stderr.String(), " in 1 of 1 groups (switch ") {
		t.Errorf("csv: no overall line on stderr:\n%s", stderr.String())
	}
	if _, err := os.Stat(path); err == nil || strings.Contains(stderr.String(), "chart written") {
		t.Errorf("-svg=off wrote a chart")
	}
}
