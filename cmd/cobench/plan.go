//go:build unix

package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/bench"
)

// groups are the row groups, in the order they run and print.
var groups = []string{"switch", "create", "timers", "chan", "durable", "memory", "echo", "http", "scale", "db", "tfb", "durable-pg"}

// A Row is one line of the table.
type Row struct {
	Group   string  `json:"group"`
	Measure string  `json:"measure"`
	Model   string  `json:"model"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
	// Ratio is Value divided by the value of the base row of the same
	// measure; 0 if the measure has no base row.
	Ratio float64 `json:"ratio"`
	// Base marks the row the others of its measure are compared with.
	Base bool `json:"base,omitempty"`
	// Spread is how far the row's rounds (micro benchmarks) or windows
	// (loads) fell apart: (max - min) / value; 0 when unknown. The verdict
	// reads it as the row's noise.
	Spread float64 `json:"spread,omitempty"`
	// Reference is a figure from a public source (libco's or a Go peer's
	// published numbers), or a fact such as "not possible": not measured
	// in this run.
	Reference string `json:"reference,omitempty"`
	Note      string `json:"note,omitempty"`
	// Skipped marks a row that stands for what the run did not measure
	// (skipRow): no value, the reason in Note.
	Skipped bool `json:"skipped,omitempty"`
}

// settings are the sizes of a run.
type settings struct {
	benchtime time.Duration // per micro benchmark run
	rounds    int           // interleaved runs of every micro benchmark
	memN      int           // suspended coroutines per memory row
	durableN  int           // suspended durable tasks checkpointed to disk
	sleepN    int           // sleeping coroutines
	sleepD    time.Duration // their sleep
	window    time.Duration // echo and HTTP load window
	loads     int           // interleaved windows per echo and HTTP server
	conns     []int         // echo connection counts
	httpConns int
	peers     bool // the load groups also run the peers' servers
	wrk       bool // the http group also runs with wrk as the client
	coro      bool // the stackful micro rows again in a cogen_coroswitch build
	quick     bool
}

func settingsFor(o *options) settings {
	s := settings{
		benchtime: 150 * time.Millisecond, rounds: 5,
		memN: 100_000, durableN: 1_000_000, sleepN: 100_000, sleepD: time.Second,
		window: 1500 * time.Millisecond, loads: 2, conns: []int{100, 1000}, httpConns: 100,
	}
	switch {
	case o.quick:
		s.benchtime, s.rounds = 40*time.Millisecond, 1
		s.memN, s.sleepN, s.sleepD = 10_000, 10_000, 200*time.Millisecond
		s.durableN = 100_000
		s.window, s.loads = 400*time.Millisecond, 1
	case o.long:
		s.benchtime, s.rounds = 400*time.Millisecond, 5
		s.memN, s.sleepD = 1_000_000, 2*time.Second
		s.window, s.loads = 3*time.Second, 3
	}
	if o.memN > 0 {
		s.memN = o.memN
	}
	s.peers = o.peers
	s.wrk = o.wrk
	s.coro = o.coroswitch
	s.quick = o.quick
	return s
}

// A micro is a benchmark body run in this process with testing.Benchmark.
type micro struct {
	group, measure, model string
	fn                    func(*testing.B)
	base                  bool
	ref                   string
}

func micros() []micro {
	const sw, cr, tm = "switch round trip", "create + run + release", "timer add + cancel"
	ms := []micro{
		{"switch", sw, "stackful Resume+Yield", bench.StackfulSwitch, false, ""},
		{"switch", sw, "stackless Gosched via ready queue", bench.StacklessSwitch, true, ""},
		{"switch", sw, "iter.Pull next+yield", bench.IterPullSwitch, false, ""},
		{"switch", sw, "goroutine + chan ping-pong", bench.ChanPingPong, false, ""},
		{"switch", sw, "plain func call (floor)", bench.FuncCall, false, ""},
	}
	for _, mode := range bench.StackfulModes {
		ms = append(ms, micro{"create", cr, "stackful " + mode, func(b *testing.B) { bench.StackfulCreateRelease(b, mode) }, false, ""})
	}
	ms = append(ms,
		micro{"create", cr, "stackless", bench.StacklessCreateRelease, true, ""},
		micro{"create", cr, "stackless, pooled (stackless.Pool: blocks reused)", bench.StacklessPoolCreateRelease, false, ""},
		micro{"create", cr, "iter.Pull create+next+stop (floor of stackful)", bench.IterPullCreate, false, ""},
		micro{"create", cr, "goroutine", bench.GoroutineCreate, false, ""},
		micro{"timers", tm, "loop wheel (both models)", bench.WheelAddCancel, true, ""},
		micro{"timers", tm, "time.AfterFunc + Stop", bench.AfterFuncStop, false, ""},
	)
	ms = append(ms, chanMicros()...) // chan.go
	for _, s := range bench.DurableShapes {
		dur := "durable task to bytes and back: " + s.Desc
		ms = append(ms,
			micro{"durable", dur, "stackless Snapshot", func(b *testing.B) { bench.DurableSnapshot(b, s) }, true, "stackful, libco, goroutines: not possible (a stack is not data)"},
			micro{"durable", dur, "stackless Restore (scheduled on a loop)", func(b *testing.B) { bench.DurableRestore(b, s) }, false, ""},
		)
	}
	return ms
}

// run measures the selected groups and returns their rows. Each phase (a
// group, or the micro benchmarks of several groups, which run interleaved)
// is announced on the progress log when it starts and when it ends, with
// its elapsed time; a group that cannot run here leaves a skipped row
// (skipRow) saying why.
func run(o *options) ([]Row, error) {
	s := settingsFor(o)
	p := o.progress
	var rows []Row
	sel := func(g string) bool { return len(o.only) == 0 || o.only[g] }
	phase := func(name string, fn func() ([]Row, error)) error {
		end := p.begin(name)
		r, err := fn()
		end(r, err)
		rows = append(rows, r...)
		return err
	}

	var selected []micro
	var microGroups []string
	for _, m := range micros() {
		if sel(m.group) {
			selected = append(selected, m)
			if !slices.Contains(microGroups, m.group) {
				microGroups = append(microGroups, m.group)
			}
		}
	}
	if len(selected) > 0 {
		name := fmt.Sprintf("micro benchmarks (%s: %d rows × %d rounds)", strings.Join(microGroups, ", "), len(selected), s.rounds)
		if err := phase(name, func() ([]Row, error) { return runMicros(selected, s, p) }); err != nil {
			return nil, err
		}
	}
	if s.coro && (sel("switch") || sel("create")) {
		end := p.begin("coroswitch build (switch, create)")
		r, err := runCoroswitch(s, p)
		end(r, err)
		if err != nil {
			return nil, err
		}
		rows = insertCoroRows(rows, r)
	}
	if sel("durable") {
		if err := phase("durable", func() ([]Row, error) { return runCheckpoint(s, p) }); err != nil { // durable.go
			return nil, err
		}
	}
	if sel("timers") {
		if err := phase("timers (sleepers, lateness)", func() ([]Row, error) {
			r, err := runSleepers(s, p)
			if err != nil {
				return nil, err
			}
			l, err := runLateness(s, p)
			return append(r, l...), err
		}); err != nil {
			return nil, err
		}
	}
	if sel("memory") {
		if err := phase("memory", func() ([]Row, error) { return runMemory(s, p) }); err != nil {
			return nil, err
		}
	}
	if s.peers && (sel("echo") || sel("http")) {
		cleanup, err := buildPeers(p)
		if err != nil {
			return nil, err
		}
		defer cleanup()
	}
	if sel("echo") {
		if err := phase("echo", func() ([]Row, error) {
			var rows []Row
			for _, conns := range s.conns {
				r, err := runLoad("echo", conns, s, p)
				if err != nil {
					return rows, err
				}
				rows = append(rows, r...)
			}
			return rows, nil
		}); err != nil {
			return nil, err
		}
	}
	if sel("http") {
		if err := phase("http", func() ([]Row, error) {
			var rows []Row
			for _, kind := range []string{"http", "http-wait"} {
				r, err := runLoad(kind, s.httpConns, s, p)
				if err != nil {
					return rows, err
				}
				rows = append(rows, r...)
			}
			return rows, nil
		}); err != nil {
			return nil, err
		}
	}
	if s.wrk && sel("http") {
		if err := phase("http (wrk)", func() ([]Row, error) { return runWrk(s, p, rows) }); err != nil { // wrk.go
			return nil, err
		}
	}
	if sel("scale") {
		if err := phase("scale", func() ([]Row, error) { return runScale(s, p) }); err != nil {
			return nil, err
		}
	}
	if sel("db") {
		if err := phase("db", func() ([]Row, error) { return runDB(s, p) }); err != nil { // db.go
			return nil, err
		}
	}
	switch {
	case tfbSelected(o):
		if err := phase("tfb", func() ([]Row, error) { return runTFB(s, p) }); err != nil { // tfb.go
			return nil, err
		}
	case len(o.only) == 0:
		rows = append(rows, skipRow("tfb", tfbMeasure, "runs with -peers or -only=tfb: it builds bench/tfb and needs PostgreSQL"))
	}
	if o.only["durable-pg"] {
		if err := phase("durable-pg", func() ([]Row, error) { return runDurablePG(s, p) }); err != nil { // durablepg.go
			return nil, err
		}
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		return slices.Index(groups, a.Group) - slices.Index(groups, b.Group)
	})
	setRatios(rows)
	return rows, nil
}

// skipRow is the row of what a run could not measure: its value is empty
// and its note says why (a missing server, a flag it needs).
func skipRow(group, measure, reason string) Row {
	return Row{Group: group, Measure: measure, Model: "(not measured)", Skipped: true, Note: "skipped: " + reason}
}

// setRatios divides every row's value by the base row's of its measure,
// after choosing the base rows by the one convention (baseConvention).
func setRatios(rows []Row) {
	chooseBases(rows)
	base := map[string]float64{}
	for _, r := range rows {
		if r.Base {
			base[r.Group+"\x00"+r.Measure] = r.Value
		}
	}
	for i := range rows {
		if b := base[rows[i].Group+"\x00"+rows[i].Measure]; b != 0 {
			rows[i].Ratio = rows[i].Value / b
		}
	}
}

// runMicros runs every micro benchmark s.rounds times, interleaved, and
// reports the median time per op of each.
func runMicros(ms []micro, s settings, p *progress) ([]Row, error) {
	restore, err := setBenchtime(s.benchtime)
	if err != nil {
		return nil, err
	}
	defer restore()
	ns := make([][]float64, len(ms))
	cpu := make([][]float64, len(ms)) // a body's "cpu-ns/op" metric, if it reports one
	allocs := make([]int64, len(ms))
	size := make([]float64, len(ms)) // a body's "bytes/task" metric, if it reports one
	for round := range s.rounds {
		for i, m := range ms {
			p.step("%s: %s (round %d/%d)", m.group, m.model, round+1, s.rounds)
			r := testing.Benchmark(m.fn)
			if r.N == 0 {
				return nil, fmt.Errorf("%s: %s: the benchmark failed", m.group, m.model)
			}
			ns[i] = append(ns[i], float64(r.T.Nanoseconds())/float64(r.N))
			if c, ok := r.Extra["cpu-ns/op"]; ok {
				cpu[i] = append(cpu[i], c)
			}
			allocs[i] = r.AllocsPerOp()
			size[i] = r.Extra["bytes/task"]
		}
	}
	rows := make([]Row, len(ms))
	for i, m := range ms {
		rows[i] = Row{
			Group: m.group, Measure: m.measure, Model: m.model,
			Value: median(ns[i]), Unit: "ns/op", Base: m.base, Reference: m.ref,
			Note:   fmt.Sprintf("%d allocs/op", allocs[i]),
			Spread: spread(ns[i]),
		}
		if len(cpu[i]) > 0 {
			rows[i].Note += fmt.Sprintf("; CPU %s ns/op", formatValue(median(cpu[i])))
		}
		if size[i] > 0 {
			rows[i].Note += fmt.Sprintf("; %.0f bytes/task", size[i])
		}
	}
	return rows, nil
}

// spread is (max - min) / median of xs, 0 for fewer than two.
func spread(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := median(xs)
	if m == 0 {
		return 0
	}
	return (slices.Max(xs) - slices.Min(xs)) / m
}

func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// runSleepers runs s.sleepN sleeping coroutines of each model, each in a
// child process.
func runSleepers(s settings, p *progress) ([]Row, error) {
	results := make([]bench.SleepResult, len(bench.SleepModels))
	for i, model := range bench.SleepModels {
		p.step("timers: %s %s sleepers", count(s.sleepN), model)
		r := &results[i]
		if err := p.during(func() error {
			return runChild(task{Kind: "sleep", Mode: model, N: s.sleepN, D: s.sleepD}, s.sleepD+2*time.Minute, r)
		}); err != nil {
			return nil, err
		}
		if r.Early > 0 {
			return nil, fmt.Errorf("timers: %s: %d sleepers woke early", model, r.Early)
		}
	}
	names := map[string]string{"goroutine": "goroutine (time.Sleep)"}
	var refs map[string]string // reference figures cite public sources; none yet
	title := fmt.Sprintf("%s sleepers (%v each)", count(s.sleepN), s.sleepD)
	var rows []Row
	add := func(measure, unit string, value func(r bench.SleepResult) float64, ref map[string]string, note func(r bench.SleepResult) string) {
		for i, model := range bench.SleepModels {
			name := names[model]
			if name == "" {
				name = model
			}
			row := Row{Group: "timers", Measure: title + ": " + measure, Model: name, Value: value(results[i]), Unit: unit,
				Base: model == "stackless", Reference: ref[model]}
			if note != nil {
				row.Note = note(results[i])
			}
			rows = append(rows, row)
		}
	}
	add("start all", "ms", func(r bench.SleepResult) float64 { return ms(r.Start) }, nil,
		func(r bench.SleepResult) string {
			return fmt.Sprintf("%.0f ns per coroutine", float64(r.Start.Nanoseconds())/float64(r.N))
		})
	add("wake-up lateness p50", "ms", func(r bench.SleepResult) float64 { return ms(r.LateP50) }, refs,
		func(r bench.SleepResult) string { return "none early" })
	add("wake-up lateness p99", "ms", func(r bench.SleepResult) float64 { return ms(r.LateP99) }, nil,
		func(r bench.SleepResult) string { return fmt.Sprintf("max %.2f ms", ms(r.LateMax)) })
	return rows, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// privateN is the most coroutines the private-stack memory row creates:
// each reserves 128 KiB.
const privateN = 2000

// runMemory measures each memory mode in a child process.
func runMemory(s settings, p *progress) ([]Row, error) {
	var rows []Row
	measure := fmt.Sprintf("memory per suspended coroutine (%s)", count(s.memN))
	for _, mode := range bench.MemoryModes {
		n := s.memN
		note := ""
		if mode == "stackful/private128K" && n > privateN {
			n = privateN
			note = fmt.Sprintf("%s coroutines, not %s: 128 KiB reserved each", count(n), count(s.memN))
		}
		p.step("memory: %s coroutines, %s", count(n), mode)
		var r bench.MemoryResult
		if err := p.during(func() error {
			return runChild(task{Kind: "memory", Mode: mode, N: n}, 5*time.Minute, &r)
		}); err != nil {
			return nil, err
		}
		note = joinNote(note, fmt.Sprintf("%.0f B before a GC", r.PerCo))
		if mode == "stackless/echo" {
			note = joinNote(note, "task + generated EchoFrame; the loop's fd registration (both models) not counted")
		}
		rows = append(rows, Row{Group: "memory", Measure: measure, Model: mode, Value: r.PerCoGC, Unit: "B",
			Base: mode == "stackless/echo", Note: note})
	}
	idle, err := idleRows(s, p)
	return append(rows, idle...), err
}

// idleN is how many idle echo connections the idle-memory rows open: two
// descriptors each in one process (bench.IdleConns), within a 20,000
// descriptor limit.
const idleN = 4000

// idleRows measures the server memory per idle echo connection of each
// model, each in a child process, against Go's net (goroutine per
// connection).
func idleRows(s settings, p *progress) ([]Row, error) {
	n := idleN
	if s.rounds == 1 {
		n = 1000
	}
	measure := fmt.Sprintf("memory per idle echo connection (%s)", count(n))
	var rows []Row
	for _, model := range bench.IdleModels {
		p.step("memory: %s idle connections, %s", count(n), model)
		var r bench.MemoryResult
		if err := p.during(func() error {
			return runChild(task{Kind: "idle", Mode: model, N: n}, 2*time.Minute, &r)
		}); err != nil {
			return nil, err
		}
		name := model
		if model == "goroutine" {
			name = "goroutine (Go net)"
		}
		rows = append(rows, Row{Group: "memory", Measure: measure, Model: name, Value: r.PerCoGC, Unit: "B",
			Base: model == "goroutine",
			Note: fmt.Sprintf("%.0f B before a GC, RSS +%.0f B; stacks + live heap of the server, one round trip made", r.PerCo, r.RSS)})
	}
	return rows, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "; " + b
}

// loadSlack is how long a load child may take beyond its window before it
// is stopped: enough to connect, shut down and report, with room to spare
// on a loaded machine. The load client gives up before (echoLoadTimeout).
const loadSlack = 40 * time.Second

// runLoad serves the load of kind ("echo", "http" or "http-wait": HTTP
// whose handler waits 1 ms) with every model of the kind, each server in a
// child process.
func runLoad(kind string, conns int, s settings, p *progress) ([]Row, error) {
	models, base, group := bench.EchoModels, "stackless/generated", kind
	title := fmt.Sprintf("echo %s conns", count(conns))
	switch kind {
	case "http":
		models, base = bench.HTTPModels, "net/http"
		title = fmt.Sprintf("HTTP hello %s conns", count(conns))
	case "http-wait":
		models, base, group = bench.HTTPWaitModels, "net/http", "http"
		title = fmt.Sprintf("HTTP hello, handler waits 1 ms, %s conns", count(conns))
	}
	if s.peers {
		models = append(slices.Clone(models), peerModels[kind]...)
	}
	models = withUring(kind, slices.Clone(models))
	// Each server serves s.loads windows, the models taking turns, so that
	// a burst of load from elsewhere on the machine does not fall on one
	// model only; a model's figures are over all its windows together.
	results := make([]bench.LoadResult, len(models))
	windows := make([][]bench.LoadResult, len(models)) // each window's own, for the spread
	retried := make([]int, len(models))
	for round := range s.loads {
		for i, model := range models {
			p.step("%s: %s conns, %s server (window %d/%d)", kind, count(conns), model, round+1, s.loads)
			var r bench.LoadResult
			if err := p.during(func() error {
				mode, backend := splitBackend(model)
				again, err := runChildRetry(p, task{Kind: kind, Mode: mode, Backend: backend, Conns: conns, D: s.window}, s.window+loadSlack, &r)
				if again {
					retried[i]++
				}
				return err
			}); err != nil {
				return nil, err
			}
			if r.Requests == 0 {
				return nil, fmt.Errorf("%s: %s: no request answered", title, model)
			}
			results[i] = addResults(results[i], r)
			windows[i] = append(windows[i], r)
		}
	}
	names := map[string]string{
		"stackless/generated": "stackless (generated EchoFrame)",
		"stackless/hand":      "stackless (hand-written frame)",
		"goroutine":           "goroutine per conn (Go net)",
		"stackful/conet":      "stackful (conet net.Conn)",
		"stackful/co":         "stackful (Co.Read/Co.Write)",
		"stackful/cohttp":     "stackful (cohttp server, its //co:stackless source)",
		"stackless/cohttp":    "stackless (cohttp server, generated frames)",
	}
	if kind == "http-wait" {
		names["stackful/cohttp"] = "stackful (cohttp, WaitHandler run on the coroutine)"
		names["stackless/cohttp"] = "stackless (cohttp, WaitHandler's generated frame)"
		names["net/http"] = "net/http (time.Sleep in the handler)"
	}
	var rows []Row
	add := func(measure, metric, unit string, value func(r bench.LoadResult) (float64, bool), note func(model string, r bench.LoadResult) string) {
		for i, model := range models {
			v, ok := value(results[i])
			if !ok {
				continue
			}
			mode, _ := splitBackend(model)
			name := names[mode]
			if name == "" {
				name = peerNames[mode]
			}
			if name == "" {
				name = mode
			}
			name = rowName(model, name)
			row := Row{Group: group, Measure: title + ": " + measure, Model: name, Value: v, Unit: unit,
				Base: model == base}
			var per []float64
			for _, w := range windows[i] {
				if x, ok := value(w); ok {
					per = append(per, x)
				}
			}
			row.Spread = spread(per)
			if note != nil {
				row.Note = note(model, results[i])
			}
			row.Note = joinNote(row.Note, retryNote(retried[i], s.loads))
			rows = append(rows, row)
		}
	}
	add("server CPU per request", "cpu", "µs/req", func(r bench.LoadResult) (float64, bool) { return r.CPUPerReqMicros(), true }, nil)
	add("requests/s", "rps", "req/s", func(r bench.LoadResult) (float64, bool) { return r.ReqPerSec(), true },
		func(_ string, r bench.LoadResult) string {
			return fmt.Sprintf("%s requests in %.2f s", groupDigits(fmt.Sprint(r.Requests)), r.Elapsed.Seconds())
		})
	add("server read+write syscalls per request", "sys", "calls/req", func(r bench.LoadResult) (float64, bool) { return r.SyscallsPerReq() },
		func(model string, r bench.LoadResult) string {
			note := fmt.Sprintf("%.2f reads + %.2f writes", float64(r.ServerReads)/float64(r.Requests), float64(r.ServerWrites)/float64(r.Requests))
			if r.LoopPolls < 0 && peerNames[model] != "" {
				return note + "; epoll_wait of the peer's loops not counted"
			}
			if r.LoopPolls < 0 {
				return note + "; epoll_wait of Go's poller not observable"
			}
			wait := "epoll_wait"
			if _, b := splitBackend(model); b != "" {
				wait = "io_uring_enter"
			}
			return note + fmt.Sprintf("; plus %.3f %s (loop count, whole run)", float64(r.LoopPolls)/float64(r.Requests), wait)
		})
	return rows, nil
}

// addResults adds up the figures of two load windows.
func addResults(a, b bench.LoadResult) bench.LoadResult {
	if a.LoopPolls < 0 || b.LoopPolls < 0 {
		a.LoopPolls = -1
	} else {
		a.LoopPolls += b.LoopPolls
	}
	a.Conns = b.Conns
	a.Requests += b.Requests
	a.Elapsed += b.Elapsed
	a.ServerCPU += b.ServerCPU
	if a.ServerReads < 0 || b.ServerReads < 0 || a.ServerWrites < 0 || b.ServerWrites < 0 {
		a.ServerReads, a.ServerWrites = -1, -1
	} else {
		a.ServerReads += b.ServerReads
		a.ServerWrites += b.ServerWrites
	}
	return a
}

// count formats n with a k or M suffix when it is a round number of them.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 10_000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return groupDigits(fmt.Sprint(n))
}
