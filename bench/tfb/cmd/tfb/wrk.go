package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/cogen-go/cogen/bench/tfb"
	"github.com/cogen-go/cogen/internal/wrk"
)

// runWrk runs workload w against the server at addr (process pid) with
// wrk, TechEmpower's load generator, on the same connections (at most
// wrkMaxConns) and pipeline depth as the built-in client's window just
// before it (builtin, whose
// server CPU was builtinCPU ns), for d rounded to wrk's whole seconds, and
// reports its rows: requests per second, server CPU per request (the
// server's process CPU over wrk's whole run, read from /proc as the
// built-in rows read it), p99 latency (unpipelined tests only), database
// CPU per request for the database tests. The requests/s and CPU rows' notes give the built-in
// client's figure and the ratio wrk / built-in. Without wrk it prints one
// line saying so and returns nil.
func runWrk(asJSON bool, server string, w workload, conns int, addr string, pid int, d time.Duration, builtin tfb.LoadResult, builtinCPU float64) error {
	if !wrk.Installed() {
		if !warnedNoWrk {
			fmt.Fprintln(errOut, "tfb: -wrk: wrk is not installed (Debian: apt-get install wrk): no wrk rows")
			warnedNoWrk = true
		}
		return nil
	}
	cpu := func() time.Duration {
		c, _ := tfb.ProcessCPU(pid)
		return c
	}
	capped := conns > wrkMaxConns
	conns = min(conns, wrkMaxConns)
	db0 := tfb.DatabaseCPU()
	r, err := wrk.Run(wrk.Config{URL: "http://" + addr + w.path, Conns: conns, Duration: d, Pipeline: w.pipeline}, cpu)
	db1 := tfb.DatabaseCPU()
	if err != nil {
		return err
	}
	per := func(cpu float64, n int64) float64 { return cpu / float64(time.Microsecond) / float64(max(n, 1)) }
	measure := fmt.Sprintf("%s, %d conns", w.name, conns)
	if w.pipeline > 1 {
		measure += fmt.Sprintf(", pipelined %d deep", w.pipeline)
	}
	measure += ", wrk"
	rps, cpuPer := r.ReqPerSec, per(float64(r.ServerCPU), r.Requests)
	bRPS, bCPU := float64(builtin.Requests)/builtin.Elapsed.Seconds(), per(builtinCPU, builtin.Requests)
	note := func(v, b float64, unit string) string {
		if b <= 0 {
			return ""
		}
		f := "%.3g"
		if b >= 1000 {
			f = "%.0f"
		}
		return fmt.Sprintf("built-in client: "+f+" %s, wrk / built-in %.2f×", b, unit, v/b)
	}
	rows := []Row{
		{Measure: measure + ": requests per second", Value: rps, Unit: "req/s", Note: note(rps, bRPS, "req/s")},
		{Measure: measure + ": server CPU per request", Value: cpuPer, Unit: "µs", Note: note(cpuPer, bCPU, "µs")},
	}
	// wrk 4.1 times a pipelined batch, and its percentiles of pipelined
	// runs are not to be trusted (it printed p90 and p99 of 0 µs at depth
	// 16 here): the p99 row is for unpipelined tests only.
	if w.pipeline <= 1 {
		p99 := float64(r.P99) / float64(time.Millisecond)
		rows = append(rows, Row{Measure: measure + ": p99 latency", Value: p99, Unit: "ms",
			Note: note(p99, float64(builtin.P99)/float64(time.Millisecond), "ms")})
	}
	if capped {
		rows[0].Note = fmt.Sprintf("wrk on %d conns, the built-in client on more (wrkMaxConns); %s", conns, rows[0].Note)
	}
	if n := r.SocketErrors(); n > 0 {
		rows[0].Note = fmt.Sprintf("%d socket errors; %s", n, rows[0].Note)
	}
	if w.db {
		rows = append(rows, Row{Measure: measure + ": database CPU per request", Value: per(float64(db1-db0), r.Requests), Unit: "µs"})
	}
	for _, row := range rows {
		row.Group, row.Model, row.Base = "tfb", server, server == tfb.CohttpStackless
		if asJSON {
			b, _ := json.Marshal(row)
			fmt.Println(string(b))
		} else {
			fmt.Printf("%-22s %-58s %12.2f %s\n", server, row.Measure, row.Value, row.Unit)
		}
	}
	return nil
}

// wrkMaxConns bounds wrk's connections. wrk connects inside its window
// (the built-in client connects before its warm-up): at 16,384 connections
// wrk 4.1 got no answer at all in 8 s here, at 8,192 it did.
const wrkMaxConns = 8192

// warnedNoWrk is set once -wrk has said that wrk is missing.
var warnedNoWrk bool

// errOut is where runWrk's warning goes.
var errOut = os.Stderr
