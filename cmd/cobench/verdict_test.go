//go:build unix

package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// rowsOf is a small run: a switch measure with every family, a memory
// measure without a Go row, and a throughput measure (higher is better).
func rowsOf() []Row {
	return []Row{
		{Group: "switch", Measure: "switch round trip", Model: "stackful Resume+Yield", Value: 80, Unit: "ns/op", Spread: 0.05},
		{Group: "switch", Measure: "switch round trip", Model: "stackless Gosched via ready queue", Value: 10, Unit: "ns/op", Base: true, Spread: 0.05},
		{Group: "switch", Measure: "switch round trip", Model: "iter.Pull next+yield", Value: 70, Unit: "ns/op"},
		{Group: "switch", Measure: "switch round trip", Model: "goroutine + chan ping-pong", Value: 260, Unit: "ns/op"},
		{Group: "switch", Measure: "switch round trip", Model: "plain func call (floor)", Value: 1, Unit: "ns/op"},
		{Group: "chan", Measure: "chan ping-pong round trip, one pair", Model: "stackful (cosync.Chan)", Value: 100, Unit: "ns/op"},
		{Group: "chan", Measure: "chan ping-pong round trip, one pair", Model: "stackless (cosync.Chan, generated frames)", Value: 95, Unit: "ns/op", Base: true},
		{Group: "echo", Measure: "echo 100 conns: requests/s", Model: "stackful", Value: 1000, Unit: "req/s"},
		{Group: "echo", Measure: "echo 100 conns: requests/s", Model: "stackless (generated EchoFrame)", Value: 1500, Unit: "req/s", Base: true, Spread: 0.3},
		{Group: "echo", Measure: "echo 100 conns: requests/s", Model: "gnet (1 loop)", Value: 1400, Unit: "req/s"},
		{Group: "echo", Measure: "echo 100 conns: requests/s", Model: "goroutine per conn (Go net)", Value: 1200, Unit: "req/s"},
	}
}

// TestFamily: every model name cobench and bench/tfb print falls in the
// right family.
func TestFamily(t *testing.T) {
	for model, want := range map[string]string{
		"stackful (cohttp server, its //co:stackless source)": famStackful,
		"stackless (cohttp server, generated frames)":         famStackless,
		"cohttp stackless":                               famStackless,
		"cohttp stackful pgx":                            famStackful,
		"resp stackless (generated)":                     famStackless,
		"go-redis stackful (conet)":                      famStackful,
		"go-redis goroutines":                            famGo,
		"net/http (time.Sleep in the handler)":           famGo,
		"goroutine per conn (Go net), GOMAXPROCS=2":      famGo,
		"time.Sleep":                                     famGo,
		"iter.Pull create+next+stop (floor of stackful)": famFloor,
		"plain func call (floor)":                        famFloor,
		"gnet (N loops)":                                 famPeer,
		"fasthttp":                                       famPeer,
		peerNames["netpoll/1"]:                           famPeer,
		peerNames["nbio/N"]:                              famPeer,
		peerNames["nbhttp"]:                              famPeer,
		"loop wheel (both models)":                       famLoop,
		"loop.Group Submit, loop 0 → 1 → 0":              famLoop,
	} {
		if got := family(model); got != want {
			t.Errorf("family(%q) = %s, want %s", model, got, want)
		}
	}
}

// TestBaseConvention: the base of a measure is its Go row (goroutines
// before iter.Pull, never the floor); without one, the row the group marked.
func TestBaseConvention(t *testing.T) {
	rows := rowsOf()
	setRatios(rows)
	bases := map[string]string{}
	for _, r := range rows {
		if r.Base {
			if b, ok := bases[r.Measure]; ok {
				t.Fatalf("%s: two bases, %s and %s", r.Measure, b, r.Model)
			}
			bases[r.Measure] = r.Model
			if r.Ratio != 1 {
				t.Errorf("base %s: ratio %v", r.Model, r.Ratio)
			}
		}
	}
	want := map[string]string{
		"switch round trip":                   "goroutine + chan ping-pong",
		"chan ping-pong round trip, one pair": "stackless (cosync.Chan, generated frames)",
		"echo 100 conns: requests/s":          "goroutine per conn (Go net)",
	}
	for m, model := range want {
		if bases[m] != model {
			t.Errorf("%s: base %q, want %q", m, bases[m], model)
		}
	}
	if got := rows[1].Ratio; got < 0.038 || got > 0.039 { // 10 / 260
		t.Errorf("stackless switch ratio %v, want 10/260", got)
	}
}

// TestVerdicts: the winner of each group, its factor over every other
// family's best, and whether that is beyond the noise: the larger spread,
// else 10 %, at least 25 % on an overloaded machine.
func TestVerdicts(t *testing.T) {
	rep := &report{Machine: machine{CPUs: 2, LoadAvg: "0.50 0.40 0.30"}, Rows: rowsOf()}
	setRatios(rep.Rows)
	vs := verdicts(rep)
	if len(vs) != 3 {
		t.Fatalf("%d verdicts, want one per group (3): %+v", len(vs), vs)
	}
	sw := vs[0]
	if sw.Group != "switch" || sw.Winner != "stackless Gosched via ready queue" || sw.Higher || len(sw.Margins) != 2 {
		t.Fatalf("switch verdict %+v", sw)
	}
	// stackful: 8× (beyond its 5 % spread); Go: iter.Pull, the best Go row, 7×.
	if m := sw.Margins[0]; m.Model != "stackful Resume+Yield" || m.Factor != 8 || m.Noise != 0.05 || !m.Beyond {
		t.Errorf("switch vs stackful %+v", m)
	}
	if m := sw.Margins[1]; m.Model != "iter.Pull next+yield" || m.Factor != 7 || m.Noise != 0.05 {
		t.Errorf("switch vs Go %+v", m)
	}
	ch := vs[1]
	if m := ch.Margins[0]; ch.Winner != "stackless (cosync.Chan, generated frames)" || m.Noise != defaultNoise || m.Beyond {
		t.Errorf("chan: 100 vs 95 ns with no spread is within 10 %%: %+v", ch)
	}
	ec := vs[2]
	if !ec.Higher || ec.Winner != "stackless (generated EchoFrame)" || len(ec.Margins) != 3 {
		t.Fatalf("echo verdict %+v", ec)
	}
	for _, m := range ec.Margins {
		if m.Noise != 0.3 || m.Beyond != (m.Factor-1 > 0.3) {
			t.Errorf("echo margin %+v: the winner's 30 %% spread is the noise", m)
		}
	}

	rep.Machine.LoadAvg = "9.5 9 9"
	if m := verdicts(rep)[0].Margins[0]; m.Noise != overloadNoise {
		t.Errorf("overloaded: noise %v, want %v", m.Noise, overloadNoise)
	}

	var sb strings.Builder
	writeVerdicts(&sb, vs)
	out := sb.String()
	for _, want := range []string{
		"- **switch** (switch round trip; lower is better): **stackless Gosched via ready queue**, 10.0 ns/op; 8.00× better than stackful Resume+Yield (beyond noise, ±5 %)",
		"- **echo** (echo 100 conns: requests/s; higher is better)",
		"1.07× better than gnet (1 loop) (within noise, ±30 %)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verdict lines lack %q:\n%s", want, out)
		}
	}
}

// TestVerdictOneFamily: a group where only one model family can be
// measured (durable: stackful, libco and goroutines cannot snapshot a
// task) says so instead of ending its line on a dangling separator.
func TestVerdictOneFamily(t *testing.T) {
	var sb strings.Builder
	writeVerdicts(&sb, []Verdict{{Group: "durable", Measure: "to bytes and back", Winner: "stackless Snapshot", Value: 897, Unit: "ns/op"}})
	want := "- **durable** (to bytes and back; lower is better): **stackless Snapshot**, 897 ns/op; no other model family can be measured here\n"
	if out := sb.String(); !strings.HasSuffix(out, want) {
		t.Errorf("verdict line:\n%s\nwant it to end with:\n%s", out, want)
	}
}

// TestWarnings: a load above the cores, a slow floor and retried rows are
// each named, loudly, in the Markdown and the chart.
func TestWarnings(t *testing.T) {
	rep := &report{Machine: machine{CPUs: 2, LoadAvg: "0.50 0.40 0.30", Date: "d", Model: "m", Go: "go"}, Rows: rowsOf()}
	rep.Rows = append(rep.Rows, Row{Group: "create", Measure: "create + run + release", Model: "iter.Pull create+next+stop (floor of stackful)", Value: 374, Unit: "ns/op"})
	if ws := warnings(rep); len(ws) != 0 {
		t.Fatalf("quiet run warned: %q", ws)
	}
	rep.Machine.LoadAvg = "18.02 10 5"
	rep.Rows[4].Value = 18 // the floor
	rep.Rows[0].Note = "RETRIED: 1 of 2 windows failed once"
	rep.Warnings = warnings(rep)
	if len(rep.Warnings) != 3 || !strings.Contains(rep.Warnings[0], "18.02") || !strings.Contains(rep.Warnings[1], "18.0 ns/op") || !strings.Contains(rep.Warnings[2], "1 rows") {
		t.Fatalf("warnings %q", rep.Warnings)
	}
	var sb strings.Builder
	writeMarkdown(&sb, rep)
	if n := strings.Count(sb.String(), "> **WARNING: "); n != 3 {
		t.Errorf("%d WARNING lines in the Markdown, want 3:\n%s", n, sb.String())
	}
	if !strings.Contains(sb.String(), baseConvention) {
		t.Error("the Markdown does not state the baseline convention")
	}
	if svg := chartSVG(rep); strings.Count(svg, ">WARNING: ") != 3 {
		t.Errorf("the chart does not show the three warnings")
	}
}

// TestChartSVG: a legend of the families, bars coloured by family (a Go
// peer's and time.Sleep's rows are not drawn like stackless), the direction
// of better per measure, the load, and a width that holds the longest label
// and value text.
func TestChartSVG(t *testing.T) {
	rows := rowsOf()
	rows[2].Model = "a model name long enough to be clipped by a fixed label column of 300 pixels"
	rep := &report{Machine: machine{CPUs: 2, LoadAvg: "1.25 1 1", Date: "d", Model: "m", Go: "go"}, Rows: rows}
	setRatios(rep.Rows)
	rep.Verdict = verdicts(rep)
	svg := chartSVG(rep)
	for _, want := range []string{"load average 1.25 1 1", "ns/op, lower is better", "req/s, higher is better", ">stackless</text>", ">stackful</text>", ">Go</text>", ">peer</text>", "Verdict"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	color := map[string]string{}
	for _, fc := range familyColors {
		color[fc.family] = fc.color
	}
	for _, r := range rep.Rows {
		if got, want := barColor(r), color[family(r.Model)]; got != want {
			t.Errorf("%s: colour %s, want %s's %s", r.Model, got, family(r.Model), want)
		}
	}
	if barColor(Row{Model: "time.Sleep"}) == barColor(Row{Model: "stackless"}) || barColor(Row{Model: "net/http"}) == barColor(Row{Model: "stackless (cohttp server, generated frames)"}) {
		t.Error("Go's rows are drawn like stackless ones")
	}
	width, _ := strconv.ParseFloat(regexp.MustCompile(`<svg [^>]*width="([0-9.]+)"`).FindStringSubmatch(svg)[1], 64)
	if need := textWidth(rows[2].Model) + barMax; width < need {
		t.Errorf("chart %v px wide, the longest label and a bar need %v", width, need)
	}
}

// TestBackendVerdict: a group with io_uring rows gets a second line that
// pits the best io_uring row against the best epoll row of the same
// models, and names the winner; rows without a counterpart are left out.
func TestBackendVerdict(t *testing.T) {
	m := "echo 100 conns: server CPU per request"
	rows := []Row{
		{Group: "echo", Measure: m, Model: "stackless (generated EchoFrame)", Value: 10, Unit: "µs/req"},
		{Group: "echo", Measure: m, Model: "stackful (Co)", Value: 12, Unit: "µs/req"},
		{Group: "echo", Measure: m, Model: "stackless (generated EchoFrame)" + uringName, Value: 8, Unit: "µs/req"},
		{Group: "echo", Measure: m, Model: "stackful (Co)" + uringName, Value: 9, Unit: "µs/req"},
		{Group: "echo", Measure: m, Model: "gnet (1 loop)" + uringName, Value: 1, Unit: "µs/req"}, // no epoll twin: ignored
		{Group: "echo", Measure: m, Model: "goroutine per conn (Go net)", Value: 11, Unit: "µs/req"},
	}
	rep := &report{Machine: machine{CPUs: 2, LoadAvg: "0.5 0.5 0.5"}, Rows: rows}
	vs := verdicts(rep)
	if len(vs) != 2 {
		t.Fatalf("%d verdicts, want the group's and the backends': %+v", len(vs), vs)
	}
	b := vs[1]
	if b.Group != "echo backends (epoll or io_uring)" || b.Winner != "stackless (generated EchoFrame)"+uringName || len(b.Margins) != 1 {
		t.Fatalf("backend verdict %+v", b)
	}
	if mg := b.Margins[0]; mg.Model != "stackless (generated EchoFrame)" || mg.Factor != 1.25 || !mg.Beyond {
		t.Errorf("margin %+v, want 1.25× over the epoll row, beyond 10 %%", mg)
	}
	rows[0].Value = 7 // epoll ahead now
	if b := verdicts(rep)[1]; b.Winner != "stackless (generated EchoFrame)" || b.Margins[0].Model != "stackless (generated EchoFrame)"+uringName {
		t.Errorf("epoll ahead: %+v", b)
	}
}
