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
	"strings"
)

// The tfb group: TechEmpower's six test types against PostgreSQL, run by
// the tfb command of the nested module bench/tfb (pgx and fasthttp are not
// dependencies of this module): cohttp stackful and stackless with the
// coroutine-native client client/pg, cohttp stackful with pgx through
// conet, and, with -peers, net/http and fasthttp with pgx pools. tfb uses
// COGEN_PG_URL, or starts a throwaway PostgreSQL; without either the
// group is skipped with a note. It runs with -only=tfb, or in a full run
// with -peers: it builds a module and measures 8 workloads per server,
// and, where the kernel gives io_uring, json and plaintext of both cohttp
// servers with their loops on io_uring (rows ending in uringName).

// tfbMeasure names the group's measures in its skipped row.
const tfbMeasure = "TechEmpower test types against PostgreSQL"

// tfbSelected reports whether the run includes the tfb group.
func tfbSelected(o *options) bool {
	return o.only["tfb"] || (len(o.only) == 0 && o.peers)
}

func runTFB(s settings, p *progress) ([]Row, error) {
	exe, cleanup, err := buildNested(p, filepath.Join("bench", "tfb"), "./cmd/tfb", "tfb", "pgx, fasthttp, client/pg")
	if err != nil {
		return nil, fmt.Errorf("tfb: %w", err)
	}
	defer cleanup()
	servers := []string{"cohttp stackful", "cohttp stackless", "cohttp stackful pgx"}
	if s.peers {
		servers = append(servers, "net/http", "fasthttp")
	}
	args := []string{"bench", "-json", "-servers", strings.Join(servers, ","), "-d", s.window.String()}
	if s.wrk {
		args = append(args, "-wrk") // wrk.go
	}
	if uringAvailable() { // json and plaintext of the cohttp servers on io_uring too (backend.go)
		args = append(args, "-uring", "cohttp stackless,cohttp stackful")
	}
	if s.quick {
		args = append(args, "-tests", "json,db,queries=20,fortunes,plaintext", "-warmup", "200ms", "-plaintext-conns", "1024")
	}
	p.step("tfb: %s (%s)", strings.Join(servers, ", "), strings.Join(args[1:], " "))
	cmd := exec.Command(exe, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		why := strings.TrimSpace(stderr.String())
		p.note("tfb: skipped: %s", why)
		return []Row{skipRow("tfb", tfbMeasure, strings.TrimPrefix(why, "tfb: skipped: "))}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tfb: %v\n%s", err, stderr.Bytes())
	}
	var rows []Row
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("tfb: %q: %w", sc.Text(), err)
		}
		rows = append(rows, r)
	}
	if stderr.Len() > 0 {
		fmt.Fprintf(os.Stderr, "%s", stderr.Bytes())
	}
	return rows, nil
}
