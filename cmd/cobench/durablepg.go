//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
// and the time to finish a SIGKILLed worker's workflows in a new worker.
// durablepg uses COGEN_PG_URL, or starts a throwaway PostgreSQL; without
// either the group is a skipped row. It runs only with -only=durable-pg:
// it builds a module and runs for a minute or more.

// durablePGMeasure names the group's measures in its skipped row.
const durablePGMeasure = "durable workflows on PostgreSQL: cogen's runner beside DBOS Transact"

// durablePGSizes are durablepg bench's sizes: workflows per load and in
// the recovery run, and -quick's.
const (
	durablePGSteps, durablePGInFlight = 10, 100
	durablePGW, durablePGRecoverW     = 5000, 2000
	durablePGQuickW                   = 1000
	durablePGQuickRecoverW            = 500
)

func runDurablePG(s settings, p *progress) ([]Row, error) {
	exe, cleanup, err := buildNested(p, filepath.Join("bench", "durablepg"), ".", "durablepg", "DBOS Transact, pgx, durable/pgstore")
	if err != nil {
		return nil, fmt.Errorf("durable-pg: %w", err)
	}
	defer cleanup()
	w, rw := durablePGW, durablePGRecoverW
	if s.quick {
		w, rw = durablePGQuickW, durablePGQuickRecoverW
	}
	args := []string{"bench", "-json", "-n", strconv.Itoa(durablePGSteps), "-c", strconv.Itoa(durablePGInFlight),
		"-w", strconv.Itoa(w), "-recover-w", strconv.Itoa(rw)}
	p.step("durable-pg: %s", strings.Join(args[1:], " "))
	cmd := exec.Command(exe, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
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
		return nil, fmt.Errorf("durable-pg: %v\n%s", err, stderr.Bytes())
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
	if stderr.Len() > 0 {
		fmt.Fprintf(os.Stderr, "%s", stderr.Bytes())
	}
	return rows, nil
}
