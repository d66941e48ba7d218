package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// A Row is one line of cobench's table (cmd/cobench's Row, the fields it
// reads).
type Row struct {
	Group   string  `json:"group"`
	Measure string  `json:"measure"`
	Model   string  `json:"model"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
	Base    bool    `json:"base,omitempty"`
	Note    string  `json:"note,omitempty"`
	Skipped bool    `json:"skipped,omitempty"`
}

const group = "durable-pg"

// bench runs each engine's load in a worker child, one after the other on
// the same server, then each engine's recovery, and writes the rows.
func bench(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	db := fs.String("db", "", "postgres:// URL (default COGEN_PG_URL, else a throwaway server)")
	fsync := fs.Bool("fsync", false, "the throwaway server runs with fsync on (off by default, as in CI)")
	engines := fs.String("engines", strings.Join(engineNames, ","), "engines to run, in this order")
	n := fs.Int("n", 10, "steps per workflow")
	c := fs.Int("c", 100, "workflows in flight")
	w := fs.Int("w", 2000, "workflows per load")
	rw := fs.Int("recover-w", 1000, "workflows of the recovery run (0: no recovery run)")
	lease := fs.Duration("lease", 2*time.Second, "the cogen runner's lease")
	loops := fs.Int("loops", 1, "the cogen runner's loops")
	conns := fs.Int("conns", 0, "the cogen store's conns per loop (0: pgstore's default)")
	poll := fs.Duration("poll", 0, "the cogen runner's poll for due tasks when idle (0: the runner's default)")
	asJSON := fs.Bool("json", false, "write the rows as JSON lines (cobench's format)")
	sleep := fs.String("sleepers", "", "also measure the worker's heap with this many workflows asleep in the store (comma-separated, ascending; see durablepg sleepers)")
	sleepReal := fs.Int("sleepers-real", 10000, "of the sleepers, started one by one and run to their sleep; beyond, inserted in bulk")
	profile := fs.String("cpuprofile", "", "write each engine's CPU profile of its load to this directory (<engine>.pprof)")
	fs.Parse(args)
	url, stop, err := database(*db, *fsync)
	if err != nil {
		return err
	}
	defer stop()
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	names := strings.Split(*engines, ",")
	for _, e := range names {
		if !slices.Contains(engineNames, e) {
			return fmt.Errorf("unknown engine %q (engines: %s)", e, strings.Join(engineNames, ", "))
		}
	}
	var loads, recs []result
	var recTimes []time.Duration
	for _, e := range names {
		cfg := workerConfig{engine: e, url: url, n: *n, c: *c, w: *w, lease: *lease, loops: *loops, conns: *conns, poll: *poll}
		if *profile != "" {
			cfg.profile = filepath.Join(*profile, e+".pprof")
		}
		log.Printf("%s: %d workflows of %d steps, %d in flight", e, *w, *n, *c)
		r, err := runWorker(exe, cfg)
		if err != nil {
			return err
		}
		if r.Xor != r.Want {
			return fmt.Errorf("%s: the workflows' results xor to %#x, want %#x", e, r.Xor, r.Want)
		}
		loads = append(loads, r)
	}
	if *rw > 0 {
		for _, e := range names {
			cfg := workerConfig{engine: e, url: url, n: *n, c: *c, w: *rw, lease: *lease, loops: *loops, conns: *conns, poll: *poll}
			log.Printf("%s: recovery: %d workflows, SIGKILL after %d finished", e, *rw, max(*rw/4, 1))
			d, r, err := recovery(exe, cfg)
			if err != nil {
				return err
			}
			recs = append(recs, r)
			recTimes = append(recTimes, d)
		}
	}
	rows := makeRows(names, loads, recs, recTimes, *n, *c, *lease)
	if *sleep != "" {
		log.Printf("cogen: sleepers: %s (the first %d started one by one)", *sleep, *sleepReal)
		r, err := runSleepers(exe, url, *sleep, *sleepReal)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tmodel\tvalue\tunit\tnote")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%.4g\t%s\t%s\n", r.Measure, r.Model, r.Value, r.Unit, r.Note)
	}
	return tw.Flush()
}

// makeRows turns the workers' results into the group's rows, a measure at
// a time; DBOS's rows are the base.
func makeRows(names []string, loads, recs []result, recTimes []time.Duration, n, c int, lease time.Duration) []Row {
	shape := fmt.Sprintf(", %d-step workflows, %d in flight", n, c)
	var rows []Row
	add := func(measure, unit string, value func(i int, r result) (float64, string)) {
		for i, r := range loads {
			v, note := value(i, r)
			if v < 0 {
				continue
			}
			rows = append(rows, Row{Group: group, Measure: measure + shape, Model: engineModel[names[i]], Value: v, Unit: unit, Base: names[i] == "dbos", Note: note})
		}
	}
	add("workflows per second", "tasks/s", func(i int, r result) (float64, string) {
		return float64(r.Workflows) / r.Seconds, fmt.Sprintf("%d workflows in %.2f s", r.Workflows, r.Seconds)
	})
	add("worker CPU per step", "µs", func(i int, r result) (float64, string) {
		return r.WorkerCPU / float64(r.Steps) * 1e6, fmt.Sprintf("heap in use after the load %.1f MB", float64(r.Heap)/1e6)
	})
	add("PostgreSQL CPU per step", "µs", func(i int, r result) (float64, string) {
		if r.PGCPU < 0 {
			return -1, ""
		}
		return r.PGCPU / float64(r.Steps) * 1e6, fmt.Sprintf("the server's process tree; %.2f transactions per step", float64(r.Xacts)/float64(r.Steps))
	})
	add("WAL bytes per step", "B", func(i int, r result) (float64, string) {
		return float64(r.WAL) / float64(r.Steps), ""
	})
	add("table bytes per step", "B", func(i int, r result) (float64, string) {
		return float64(r.Tables) / float64(r.Steps), "growth of the engine's tables and indexes, kept after the workflows end"
	})
	for i, r := range recs {
		note := fmt.Sprintf("%d unfinished at the kill; from the new worker's start: %.2f s to the first finished, %.2f s to the last",
			r.Recovered, r.FirstSeconds, r.RecoverSeconds)
		if names[i] == "cogen" {
			note += fmt.Sprintf("; the new worker takes the killed one's name and its leases (%v) at its start", lease)
		} else {
			note += "; DBOS recovers its executor's workflows when it launches"
		}
		rows = append(rows, Row{Group: group, Measure: "recovery: SIGKILL of a worker to all its workflows finished by a new one" + shape,
			Model: engineModel[names[i]], Value: recTimes[i].Seconds(), Unit: "s", Base: names[i] == "dbos", Note: note})
	}
	return rows
}

// runSleepers runs durablepg sleepers in a child and returns its rows.
func runSleepers(exe, url, counts string, real int) ([]Row, error) {
	cmd := exec.Command(exe, "sleepers", "-db", url, "-counts", counts, "-real", strconv.Itoa(real), "-json")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("sleepers: %w", err)
	}
	var rows []Row
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var r sleepRow
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("sleepers: %w", err)
		}
		how := "all started one by one and run to their sleep"
		if r.Real < r.Count {
			how = fmt.Sprintf("%s started and run to their sleep, the rest inserted in bulk", count(r.Real))
		}
		rows = append(rows, Row{Group: group, Measure: fmt.Sprintf("worker heap in use with %s workflows asleep for a year in PostgreSQL", count(r.Count)),
			Model: engineModel["cogen"], Value: float64(r.HeapInuse) / 1e6, Unit: "MB", Base: true,
			Note: fmt.Sprintf("%s; %d in the runner's memory; the least of 3 reads after GCs, the runner polling (most %.2f MB); tables %.0f MB; idle polling: worker %.0f ms, server %.0f ms of CPU per second",
				how, r.InMemory, float64(r.HeapMax)/1e6, float64(r.Tables)/1e6, r.IdleCPU*1e3, r.IdlePGCPU*1e3)})
	}
	return rows, nil
}

// count writes n with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
