//go:build unix

package main

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/cogen-go/cogen/internal/bench"
)

// The scale group measures the cost of handing work from one loop of a
// group to another, and serves the echo and HTTP loads with each model at 1 loop
// and at N loops (N = cores, at least 2): loop.Group-based servers for the
// two coroutine models (one SO_REUSEPORT listener per loop), and Go's
// servers with GOMAXPROCS 1 and N, each in a child process like the echo
// and HTTP rows. Beside requests/s and server CPU per request it states
// each model's N-loop/1-loop throughput ratio, measured in one run.

// scaleConns is the connection count of the scale loads.
const scaleConns = 100

var scaleNames = map[string]string{
	"echo/stackful":  "stackful (Group.ServeTCP, Echo)",
	"echo/stackless": "stackless (Group.Serve, generated EchoFrame)",
	"echo/goroutine": "goroutine per conn (Go net)",
	"http/stackful":  "stackful (cohttp on stackful.Group)",
	"http/stackless": "stackless (cohttp, generated, on loop.Group)",
	"http/net/http":  "net/http",
}

// scaleBase is the base row of each kind's measures, at 1 loop.
var scaleBase = map[string]string{"echo": "stackless", "http": "stackless"}

// scaleLoops is N: the machine's cores, at least 2.
func scaleLoops() int { return max(runtime.NumCPU(), 2) }

// runScale measures the scale group: for each kind, every model at 1 and at
// N loops, s.loads windows each, the servers taking turns.
func runScale(s settings, p *progress) ([]Row, error) {
	n := scaleLoops()
	loopCounts := []int{1, n}
	rows, err := runMicros([]micro{
		{"scale", "cross-loop hand-off round trip", "loop.Group Submit, loop 0 → 1 → 0", bench.GroupSubmitRoundTrip, true, ""},
		{"scale", "cross-loop hand-off round trip", "goroutine + chan ping-pong", bench.ChanPingPong, false, "Go: goroutine+chan 330 ns"},
	}, s, p)
	if err != nil {
		return nil, err
	}
	rows[0].Note = joinNote(rows[0].Note, "each hop wakes a loop blocked in epoll_wait (eventfd write)")
	for _, kind := range []string{"echo", "http"} {
		models := withUring("scale/"+kind, slices.Clone(bench.ScaleModels[kind]))
		// modeOf is a model's key in results: its scale mode, plus its
		// backend's suffix.
		modeOf := func(model string, loops int) string {
			m, b := splitBackend(model)
			return bench.ScaleMode(kind, m, loops) + backendSuffix(b)
		}
		results := make(map[string]bench.ScaleResult)
		retried := make(map[string]int) // by mode: windows run again after a failure
		for round := range s.loads {
			for _, model := range models {
				for _, loops := range loopCounts {
					mode := modeOf(model, loops)
					p.step("scale: %s %s server, %d loop(s) (window %d/%d)", kind, model, loops, round+1, s.loads)
					var r bench.ScaleResult
					if err := p.during(func() error {
						m, backend := splitBackend(model)
						again, err := runChildRetry(p, task{Kind: "scale", Mode: bench.ScaleMode(kind, m, loops), Backend: backend, Conns: scaleConns, D: s.window}, s.window+loadSlack, &r)
						if again {
							retried[mode]++
						}
						return err
					}); err != nil {
						return nil, err
					}
					if r.Requests == 0 {
						return nil, fmt.Errorf("scale: %s: no request answered", mode)
					}
					sum := results[mode]
					sum.LoadResult = addResults(sum.LoadResult, r.LoadResult)
					sum.ClientCPU += r.ClientCPU
					sum.MachineBusy += r.MachineBusy
					sum.MachineWall += r.MachineWall
					results[mode] = sum
				}
			}
		}
		title := fmt.Sprintf("echo %d conns, 1 and %d loops", scaleConns, n)
		if kind == "http" {
			title = fmt.Sprintf("HTTP hello %d conns, 1 and %d loops", scaleConns, n)
		}
		name := func(model string, loops int) string {
			unit := "loops"
			if loops == 1 {
				unit = "loop"
			}
			m, _ := splitBackend(model)
			if m == "goroutine" || m == "net/http" {
				return fmt.Sprintf("%s, GOMAXPROCS=%d", scaleNames[kind+"/"+m], loops)
			}
			return rowName(model, fmt.Sprintf("%s, %d %s", scaleNames[kind+"/"+m], loops, unit))
		}
		add := func(measure, unit string, value func(r bench.ScaleResult) float64, note func(r bench.ScaleResult) string) {
			for _, model := range models {
				for _, loops := range loopCounts {
					mode := modeOf(model, loops)
					r := results[mode]
					rows = append(rows, Row{Group: "scale", Measure: title + ": " + measure, Model: name(model, loops),
						Value: value(r), Unit: unit, Base: model == scaleBase[kind] && loops == 1,
						Note: joinNote(note(r), retryNote(retried[mode], s.loads))})
				}
			}
		}
		add("requests/s", "req/s", func(r bench.ScaleResult) float64 { return r.ReqPerSec() }, func(r bench.ScaleResult) string {
			return fmt.Sprintf("%s requests in %.2f s", groupDigits(fmt.Sprint(r.Requests)), r.Elapsed.Seconds())
		})
		add("server CPU per request", "µs/req", func(r bench.ScaleResult) float64 { return r.CPUPerReqMicros() }, cpuNote)
		for _, model := range models {
			one, all := results[modeOf(model, 1)], results[modeOf(model, n)]
			m, _ := splitBackend(model)
			rows = append(rows, Row{Group: "scale", Measure: fmt.Sprintf("%s: %d-loop / 1-loop requests/s", title, n),
				Model: rowName(model, scaleNames[kind+"/"+m]), Value: all.ReqPerSec() / one.ReqPerSec(), Unit: "×", Base: model == scaleBase[kind],
				Note: fmt.Sprintf("%s req/s at %d loops over %s at 1; CPU per request %.2f×",
					groupDigits(fmt.Sprintf("%.0f", all.ReqPerSec())), n, groupDigits(fmt.Sprintf("%.0f", one.ReqPerSec())), all.CPUPerReqMicros()/one.CPUPerReqMicros())})
		}
	}
	return rows, nil
}

// cpuNote says how busy the cores were during a scale row's windows: the
// server (over the load windows), the load client (over its life: the
// windows plus connection setup) and the whole machine, every process
// included (over the child's run).
func cpuNote(r bench.ScaleResult) string {
	note := fmt.Sprintf("cores busy: server %.2f, load client %.2f",
		r.ServerCPU.Seconds()/r.Elapsed.Seconds(), r.ClientCPU.Seconds()/r.Elapsed.Seconds())
	if r.MachineBusy > 0 {
		note += fmt.Sprintf(", whole machine %.2f of %d", r.MachineBusy.Seconds()/r.MachineWall.Seconds(), runtime.NumCPU())
	}
	return note
}
