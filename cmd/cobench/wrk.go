//go:build unix

package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cogen-go/cogen/internal/bench"
	"github.com/cogen-go/cogen/internal/wrk"
)

// With -wrk the http group serves its hello load a second time with wrk,
// TechEmpower's load generator (Debian's package wrk), as the client: the
// same servers, the same connection count, keep-alive, no pipelining,
// wrk's one thread per CPU; wrk reports requests per second and latency,
// and the server's CPU is read the way the built-in client's rows read it
// (the server's process CPU, here over wrk's whole run: connection setup
// and the requests in flight at its end included, which wrk does not
// count). Each row's note gives the built-in client's figure of the same
// server in this run and the ratio wrk / built-in. wrk's windows are whole
// seconds: the load window rounded, at least 1 s.

// wrkMeasure names the wrk rows' measures, and the skipped row's.
func wrkMeasure(conns int) string {
	return fmt.Sprintf("HTTP hello %s conns, wrk (%d threads)", count(conns), min(runtime.NumCPU(), conns))
}

// runWrk measures the hello servers with wrk; builtin are the rows the run
// has so far, whose built-in http rows the notes compare with.
func runWrk(s settings, p *progress, builtin []Row) ([]Row, error) {
	title := wrkMeasure(s.httpConns)
	if !wrk.Installed() {
		p.note("http (wrk): skipped: wrk is not installed (Debian: apt-get install wrk)")
		return []Row{skipRow("http", title, "wrk is not installed (Debian: apt-get install wrk)")}, nil
	}
	models := slices.Clone(bench.HTTPModels)
	if s.peers {
		models = append(models, peerModels["http"]...)
	}
	models = withUring("http", models)
	d := max(s.window.Round(time.Second), time.Second)
	results := make([]bench.LoadResult, len(models))
	windows := make([][]bench.LoadResult, len(models))
	lat := make([][]time.Duration, len(models)) // p50, p99 of each window
	retried := make([]int, len(models))
	for round := range s.loads {
		for i, model := range models {
			p.step("http (wrk): %s conns, %s server (window %d/%d)", count(s.httpConns), model, round+1, s.loads)
			var r bench.LoadResult
			if err := p.during(func() error {
				mode, backend := splitBackend(model)
				again, err := runChildRetry(p, task{Kind: "http", Mode: mode, Backend: backend, Conns: s.httpConns, D: d, Wrk: true}, d+loadSlack, &r)
				if again {
					retried[i]++
				}
				return err
			}); err != nil {
				return nil, err
			}
			if r.Requests == 0 || r.Wrk == nil {
				return nil, fmt.Errorf("%s: %s: no request answered, or no wrk report", title, model)
			}
			results[i] = addResults(results[i], r)
			results[i].Wrk = r.Wrk // the last window's report
			windows[i] = append(windows[i], r)
			lat[i] = append(lat[i], r.Wrk.P50, r.Wrk.P99)
		}
	}
	names := builtinNames(builtin, "http", fmt.Sprintf("HTTP hello %s conns: server CPU per request", count(s.httpConns)), models)
	var rows []Row
	add := func(measure, unit string, value func(r bench.LoadResult) float64, builtinMeasure string, note func(i int) string) {
		ref := builtinValues(builtin, "http", fmt.Sprintf("HTTP hello %s conns: %s", count(s.httpConns), builtinMeasure), len(models))
		for i := range models {
			v := value(results[i])
			var per []float64
			for _, w := range windows[i] {
				per = append(per, value(w))
			}
			row := Row{Group: "http", Measure: title + ": " + measure, Model: names[i], Value: v, Unit: unit,
				Base: models[i] == "net/http", Spread: spread(per)}
			if note != nil {
				row.Note = note(i)
			}
			if ref != nil && ref[i] > 0 {
				row.Note = joinNote(row.Note, fmt.Sprintf("built-in client: %s %s, wrk / built-in %.2f×", formatValue(ref[i]), unit, v/ref[i]))
			}
			row.Note = joinNote(row.Note, retryNote(retried[i], s.loads))
			rows = append(rows, row)
		}
	}
	add("requests/s", "req/s", func(r bench.LoadResult) float64 { return r.ReqPerSec() }, "requests/s", func(i int) string {
		r := results[i]
		note := fmt.Sprintf("%s requests in %.2f s", groupDigits(fmt.Sprint(r.Requests)), r.Elapsed.Seconds())
		if n := r.Wrk.SocketErrors(); n > 0 {
			note += fmt.Sprintf("; %d socket errors (last window)", n)
		}
		return note
	})
	add("server CPU per request", "µs/req", func(r bench.LoadResult) float64 { return r.CPUPerReqMicros() }, "server CPU per request", func(int) string {
		return "server's process CPU over wrk's whole run"
	})
	add("latency p50", "ms", func(r bench.LoadResult) float64 { return ms(r.Wrk.P50) }, "", func(i int) string {
		return "median of the windows' p50 (wrk --latency)"
	})
	add("latency p99", "ms", func(r bench.LoadResult) float64 { return ms(r.Wrk.P99) }, "", nil)
	// The latency rows' values are the median over windows, not the last
	// window's (addResults keeps the last report).
	for i := range models {
		var p50, p99 []float64
		for k := 0; k < len(lat[i]); k += 2 {
			p50, p99 = append(p50, ms(lat[i][k])), append(p99, ms(lat[i][k+1]))
		}
		rows[2*len(models)+i].Value = median(p50)
		rows[3*len(models)+i].Value = median(p99)
	}
	return rows, nil
}

// builtinNames returns the row names of models: those of the built-in
// client's rows of measure (which list the same models in the same order),
// else the models themselves.
func builtinNames(rows []Row, group, measure string, models []string) []string {
	var names []string
	for _, r := range rows {
		if r.Group == group && r.Measure == measure {
			names = append(names, r.Model)
		}
	}
	if len(names) == len(models) {
		return names
	}
	names = names[:0]
	for _, m := range models {
		mode, _ := splitBackend(m)
		name := peerNames[mode]
		if name == "" {
			name = mode
		}
		names = append(names, rowName(m, name))
	}
	return names
}

// builtinValues returns the values of the rows of measure, nil unless there
// are n of them (one per model, in order).
func builtinValues(rows []Row, group, measure string, n int) []float64 {
	if measure == "" || strings.HasSuffix(measure, ": ") {
		return nil
	}
	var vs []float64
	for _, r := range rows {
		if r.Group == group && r.Measure == measure {
			vs = append(vs, r.Value)
		}
	}
	if len(vs) != n {
		return nil
	}
	return vs
}
