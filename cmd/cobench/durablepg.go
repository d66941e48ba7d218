//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// The durable-pg group: durable workflows on PostgreSQL, cogen's durable
// runner with its PostgreSQL store (durable/pgstore) beside DBOS Transact
// for Go, on the same server, with the same workload (n-step workflows,
// each step a small computation and a checkpoint, c in flight), run by
// the durablepg command of the nested module bench/durablepg (DBOS and
// pgx are not dependencies of this module): workflows per second, the
// worker's and the server's CPU per step, WAL and table bytes per step,
// the time to finish a SIGKILLed worker's workflows in a new worker, and
// the runner's worker heap with up to a million workflows asleep in the
// store.
// durablepg uses COGEN_PG_URL, or starts a throwaway PostgreSQL; without
// either the group is a skipped row. It runs only with -only=durable-pg:
// it builds a module and runs for minutes (a million rows inserted).

// durablePGMeasure names the group's measures in its skipped row.
const durablePGMeasure = "durable workflows on PostgreSQL: cogen's runner beside DBOS Transact"

// durablePGSizes are durablepg bench's sizes: workflows per load and in
// the recovery run, the counts of workflows asleep in the store at which
// the worker's heap is read (the first sleepersReal started one by one,
// the rest inserted in bulk), and -quick's.
const (
	durablePGSteps, durablePGInFlight = 10, 100
	durablePGW, durablePGRecoverW     = 5000, 2000
	durablePGSleepers                 = "10000,100000,1000000"
	durablePGSleepersReal             = 100000
	durablePGQuickW                   = 1000
	durablePGQuickRecoverW            = 500
	durablePGQuickSleepers            = "1000,10000"
	durablePGQuickSleepersReal        = 10000
)

func runDurablePG(s settings, p *progress) ([]Row, error) {
	exe, cleanup, err := buildNested(p, filepath.Join("bench", "durablepg"), ".", "durablepg", "DBOS Transact, pgx, durable/pgstore")
	if err != nil {
		return nil, fmt.Errorf("durable-pg: %w", err)
	}
	defer cleanup()
	w, rw, sl, slr := durablePGW, durablePGRecoverW, durablePGSleepers, durablePGSleepersReal
	if s.quick {
		w, rw, sl, slr = durablePGQuickW, durablePGQuickRecoverW, durablePGQuickSleepers, durablePGQuickSleepersReal
	}
	args := []string{"bench", "-json", "-n", strconv.Itoa(durablePGSteps), "-c", strconv.Itoa(durablePGInFlight),
		"-w", strconv.Itoa(w), "-recover-w", strconv.Itoa(rw), "-sleepers", sl, "-sleepers-real", strconv.Itoa(slr)}
	p.step("durable-pg: %s", strings.Join(args[1:], " "))
	cmd := exec.Command(exe, args...)
	// durablepg logs each phase on its standard error: passed through as
	// it comes, and kept for the reason of a skip.
	var stderr bytes.Buffer
	cmd.Stderr = io.MultiWriter(os.Stderr, &stderr)
	var out []byte
	err = p.during(func() (err error) {
		out, err = cmd.Output()
		return err
	})
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		why := strings.TrimSpace(stderr.String())
		p.note("durable-pg: skipped: %s", why)
		return []Row{skipRow("durable-pg", durablePGMeasure, strings.TrimPrefix(why, "durablepg: skipped: "))}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("durable-pg: %v", err)
	}
	var rows []Row
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("durable-pg: %q: %w", sc.Text(), err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}
