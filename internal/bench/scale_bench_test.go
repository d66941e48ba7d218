//go:build unix

package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// The benchmarks of issue 26's scale rows: each model measures in a child
// process of its own, as cobench does (a process reuses the stacks and
// descriptors of goroutines that ended), and each sub-benchmark reports its
// model beside the goroutine anchor measured in the same run, with the
// ratio. One iteration is one measurement of every model involved: run
// them with -benchtime=1x, e.g.
//
//	go test -run '^$' -bench 'Sleepers|IdleConns' -benchtime=1x ./internal/bench

// benchChildEnv names the measurement a child of these benchmarks makes.
const benchChildEnv = "COGEN_BENCH_CHILD"

// scaleChild runs in a child process: it measures what benchChildEnv asks
// and prints the result as JSON on one line after a marker.
func scaleChild() {
	spec := os.Getenv(benchChildEnv)
	if spec == "" {
		return
	}
	var kind, model string
	var n int
	if _, err := fmt.Sscanf(spec, "%s %s %d", &kind, &model, &n); err != nil {
		fmt.Fprintln(os.Stderr, "bench child:", err)
		os.Exit(2)
	}
	var res any
	var err error
	switch kind {
	case "sleepers":
		res, err = Sleepers(model, n, time.Second)
	case "idle":
		res, err = IdleConns(model, n)
	default:
		err = fmt.Errorf("unknown measurement %q", kind)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench child:", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(res)
	fmt.Printf("bench-child-result %s\n", out)
	os.Exit(0)
}

// inChild measures kind for model with n coroutines in a child process
// and decodes its result into res.
func inChild(b testing.TB, kind, model string, n int, res any) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchChildEnv+"="+kind+" "+model+" "+strconv.Itoa(n), "GODEBUG=adaptivestackstart=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s %s: %v\n%s", kind, model, err, out)
	}
	i := bytes.Index(out, []byte("bench-child-result "))
	if i < 0 {
		b.Fatalf("%s %s: no result in\n%s", kind, model, out)
	}
	line, _, _ := bytes.Cut(out[i+len("bench-child-result "):], []byte("\n"))
	if err := json.Unmarshal(line, res); err != nil {
		b.Fatalf("%s %s: %v in %s", kind, model, err, line)
	}
}

// BenchmarkSleepers starts 100,000 coroutines that each sleep 1 s once,
// in the stackful and stackless models beside goroutines calling
// time.Sleep: the time to start them all per coroutine and the wake-up
// lateness p50 and p99 (cobench's sleepers rows), with the ratios to the
// goroutines' figures measured in the same iteration (x-goroutine-*; goal
// of issue 26: lateness at most the goroutines').
func BenchmarkSleepers(b *testing.B) {
	const n = 100_000
	for _, model := range []string{"stackful", "stackless"} {
		b.Run(model, func(b *testing.B) {
			var m, g SleepResult
			for b.Loop() {
				inChild(b, "sleepers", model, n, &m)
				inChild(b, "sleepers", "goroutine", n, &g)
				if m.Early != 0 || g.Early != 0 {
					b.Fatalf("early wake-ups: %s %d, goroutine %d", model, m.Early, g.Early)
				}
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(float64(m.Start.Nanoseconds())/n, "start-ns/co")
			b.ReportMetric(ms(m.LateP50), "late-p50-ms")
			b.ReportMetric(ms(m.LateP99), "late-p99-ms")
			b.ReportMetric(float64(m.Start)/float64(g.Start), "x-goroutine-start")
			b.ReportMetric(float64(m.LateP50)/float64(g.LateP50), "x-goroutine-p50")
			b.ReportMetric(float64(m.LateP99)/float64(g.LateP99), "x-goroutine-p99")
		})
	}
}

// BenchmarkIdleConns serves 4,000 idle echo connections (one round trip
// made on each) in the stackful and stackless models beside Go's net: the
// server's stacks and live heap per connection after a collection, and the
// growth of the resident set per connection (cobench's idle-connection
// rows), with the ratios to Go net's in the same iteration (goal of issue
// 26 for stackful: at most Go net's).
func BenchmarkIdleConns(b *testing.B) {
	const n = 4000
	for _, model := range []string{"stackful", "stackless/generated"} {
		b.Run(model, func(b *testing.B) {
			var m, g MemoryResult
			for b.Loop() {
				inChild(b, "idle", model, n, &m)
				inChild(b, "idle", "goroutine", n, &g)
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(m.PerCoGC, "B/conn")
			b.ReportMetric(m.RSS, "rss-B/conn")
			b.ReportMetric(m.PerCoGC/g.PerCoGC, "x-gonet-B")
			if g.RSS > 0 {
				b.ReportMetric(m.RSS/g.RSS, "x-gonet-rss")
			}
		})
	}
}
