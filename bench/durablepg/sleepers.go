package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/pgstore"
	"github.com/cogen-go/cogen/internal/pgserver"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"github.com/jackc/pgx/v5"
)

// The sleepers measure: many workflows sleeping far into the future are
// rows in PostgreSQL, not memory in the worker. A runner (the library's
// defaults: SleepInMemory 1 s, so a year's sleep leaves memory) runs
// Sleeper workflows, each started with durable.Start, to their Sleep of a
// year, where each is committed as Sleeping and dropped from memory; at
// each count the worker's heap in use (after a GC) is read while its
// runner keeps polling the store. Beyond -real, the rows are inserted in
// bulk (COPY) instead: the snapshot of each one's not-started frame,
// state sleeping, due in a year (what Start and the first run leave,
// without running it), because starting a million one by one takes many
// minutes here.

// sleepSchema is the store's schema for the sleepers.
const sleepSchema = "durablepg_sleep"

// sleepFor is the sleepers' sleep.
const sleepFor = 365 * 24 * time.Hour

// sleepRow is one count's figures.
type sleepRow struct {
	Count     int     // sleeping workflows in the store
	Real      int     // of them, started and run to their Sleep by the runner
	HeapInuse uint64  // the worker's, after a GC: the least of three reads
	HeapMax   uint64  // the most of the three
	InMemory  int64   // tasks in the runner's memory
	Tables    int64   // bytes of the store's tables
	Rate      float64 // workflows per second started and run to their Sleep (the real ones of this step)
	IdleCPU   float64 // the worker's CPU seconds over a second of polling with every workflow asleep
	IdlePGCPU float64 // the server's over that second (0 when unknown)
}

func sleepers(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("sleepers", flag.ExitOnError)
	db := fs.String("db", "", "postgres:// URL (default COGEN_PG_URL, else a throwaway server)")
	counts := fs.String("counts", "10000,100000,1000000", "sleeping workflows at each measure, ascending")
	real := fs.Int("real", 100000, "workflows started one by one and run to their sleep; beyond, rows inserted in bulk")
	asJSON := fs.Bool("json", false, "write the figures as JSON lines")
	fs.Parse(args)
	var steps []int
	for c := range strings.SplitSeq(*counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n <= 0 {
			return fmt.Errorf("sleepers: -counts: %q", c)
		}
		steps = append(steps, n)
	}
	if !slices.IsSorted(steps) {
		return fmt.Errorf("sleepers: -counts not ascending: %v", steps)
	}
	url, stop, err := database(*db, false)
	if err != nil {
		return err
	}
	defer stop()
	rows, err := measureSleepers(url, steps, *real)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range rows {
			enc.Encode(r)
		}
		return nil
	}
	fmt.Fprintf(stdout, "%10s %10s %14s %10s %14s %14s %12s %12s\n", "sleeping", "run", "heap in use", "in memory", "table bytes", "started/s", "idle CPU/s", "server's")
	for _, r := range rows {
		rate := "-"
		if r.Rate > 0 {
			rate = fmt.Sprintf("%.0f", r.Rate)
		}
		fmt.Fprintf(stdout, "%10d %10d %12.2f MB %10d %11.1f MB %14s %10.3f s %10.3f s\n", r.Count, r.Real, float64(r.HeapInuse)/1e6, r.InMemory,
			float64(r.Tables)/1e6, rate, r.IdleCPU, r.IdlePGCPU)
	}
	return nil
}

// measureSleepers fills the store to each count of steps and measures.
func measureSleepers(url string, steps []int, real int) ([]sleepRow, error) {
	ctx := context.Background()
	p, err := newProbe(ctx, url)
	if err != nil {
		return nil, err
	}
	defer p.close()
	if err := p.dropSchema(ctx, sleepSchema); err != nil {
		return nil, err
	}
	st, err := pgstore.OpenURL(url, pgstore.Options{Schema: sleepSchema})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	r := durable.NewRunner(st, durable.Options{Logf: log.Printf})
	rctx, cancel := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- r.Run(rctx) }()
	defer func() { cancel(); <-ran }()

	var out []sleepRow
	have := 0
	for _, n := range steps {
		row := sleepRow{Count: n}
		if m := min(n, real); m > have {
			t0 := time.Now()
			if err := startSleepers(st, r, have, m); err != nil {
				return nil, err
			}
			row.Rate = float64(m-have) / time.Since(t0).Seconds()
			have = m
		}
		row.Real = have
		if n > have {
			if err := bulkSleepers(ctx, p.conn, have, n); err != nil {
				return nil, err
			}
			have = n
		}
		// A few polls of the runner with every workflow asleep; then
		// three reads of the heap, half a second apart, each after two
		// collections (what sync.Pools hold survives the first one).
		cpu0, pg0 := selfCPU(), serverCPU(p)
		time.Sleep(time.Second)
		row.IdleCPU, row.IdlePGCPU = selfCPU()-cpu0, serverCPU(p)-pg0
		for i := range 3 {
			if i > 0 {
				time.Sleep(500 * time.Millisecond)
			}
			runtime.GC()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if i == 0 || ms.HeapInuse < row.HeapInuse {
				row.HeapInuse = ms.HeapInuse
			}
			row.HeapMax = max(row.HeapMax, ms.HeapInuse)
		}
		row.InMemory = r.Stats().InMemory
		s, err := p.sample(ctx, sleepSchema)
		if err != nil {
			return nil, err
		}
		row.Tables = s.tables
		if left, err := p.count(ctx, `SELECT count(*) FROM "`+sleepSchema+`".tasks WHERE state <> 'sleeping'`); err != nil || left != 0 {
			return nil, fmt.Errorf("sleepers: %d tasks not sleeping (%v)", left, err)
		}
		log.Printf("sleepers: %d sleeping (%d run): heap in use %.2f MB (%.2f MB at most), %d in memory", n, row.Real,
			float64(row.HeapInuse)/1e6, float64(row.HeapMax)/1e6, row.InMemory)
		out = append(out, row)
	}
	return out, nil
}

// sleeperID names sleeper i.
func sleeperID(i int) durable.ID { return durable.ID("s" + strconv.Itoa(i)) }

// startSleepers starts sleepers from..to-1 with durable.Start from 16
// coroutines, and waits until the runner has committed each asleep and
// dropped it (Stats.Dropped).
func startSleepers(st *pgstore.Store, r *durable.Runner, from, to int) error {
	dropped0 := r.Stats().Dropped
	next := from
	return durable.Do(func(co *stackful.Co) error {
		var err error
		live := 0
		for range 16 {
			live++
			co.Env().Create(func(co *stackful.Co) {
				defer func() { live-- }()
				for err == nil && next < to {
					id := sleeperID(next)
					next++
					if e := durable.Start(co, st, id, NewSleeperFrame(id, sleepFor)); e != nil {
						err = e
					}
				}
			}, nil).Resume()
		}
		// Each sleeper must be dropped from memory; give up after 10 s
		// without progress.
		last, since := int64(-1), time.Now()
		for err == nil && (live > 0 || r.Stats().Dropped-dropped0 < int64(to-from)) {
			if d := r.Stats().Dropped; d != last {
				last, since = d, time.Now()
			} else if live == 0 && time.Since(since) > 10*time.Second {
				return fmt.Errorf("sleepers: %d of %d asleep and dropped from memory after 10 s without progress (%d in memory)",
					d-dropped0, to-from, r.Stats().InMemory)
			}
			co.Sleep(time.Millisecond)
		}
		return err
	})
}

// bulkSleepers inserts sleepers from..to-1 with COPY: the snapshot of
// each one's not-started frame, state sleeping, due in a year.
func bulkSleepers(ctx context.Context, c *pgx.Conn, from, to int) error {
	name := stackless.DurableName(NewSleeperFrame("", sleepFor))
	due := time.Now().Add(sleepFor)
	const batch = 100000
	for lo := from; lo < to; lo += batch {
		hi := min(lo+batch, to)
		rows := make([][]any, 0, hi-lo)
		for i := lo; i < hi; i++ {
			id := sleeperID(i)
			snap, err := stackless.SnapshotFrame(NewSleeperFrame(id, sleepFor))
			if err != nil {
				return err
			}
			rows = append(rows, []any{string(id), name, "sleeping", snap, due})
		}
		if _, err := c.CopyFrom(ctx, pgx.Identifier{sleepSchema, "tasks"}, []string{"id", "name", "state", "snapshot", "due"}, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("sleepers: COPY: %w", err)
		}
	}
	return nil
}

// database returns url, else COGEN_PG_URL, else a throwaway server's, and
// the function that stops the server.
func database(url string, fsync bool) (string, func(), error) {
	if url == "" {
		url = os.Getenv("COGEN_PG_URL")
	}
	if url != "" {
		return url, func() {}, nil
	}
	setting := "fsync=off"
	if fsync {
		setting = "fsync=on"
	}
	pg, err := pgserver.Start(setting)
	if err != nil {
		return "", nil, err
	}
	return pg.URL, func() { pg.Stop() }, nil
}

// serverCPU is the server's CPU seconds so far, 0 when unknown.
func serverCPU(p *probe) float64 {
	if p.postmaster == 0 {
		return 0
	}
	return treeCPU(p.postmaster)
}
