//go:build unix

package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// With -coroswitch, cobench builds itself with the build tag
// cogen_coroswitch (runtime/stackful switching with runtime.coroswitch
// directly; -ldflags=-checklinkname=0) and runs that binary as a child
// which measures the stackful rows of the switch and create groups and
// their iter.Pull anchors, interleaved in its own process. Its rows join
// the table next to the default build's, named with coroSuffix, and each
// note gives the ratio to its iter.Pull anchor measured in that child.

// coroSuffix marks the rows of the coroswitch build.
const coroSuffix = " [coroswitch build]"

// coroMicros are the micro benchmarks the coroswitch child runs.
func coroMicros() []micro {
	var ms []micro
	for _, m := range micros() {
		if (m.group == "switch" || m.group == "create") &&
			(strings.HasPrefix(m.model, "stackful") || strings.HasPrefix(m.model, "iter.Pull")) {
			ms = append(ms, m)
		}
	}
	return ms
}

// runCoroMicros is the child's side: the rows of coroMicros, measured with
// benchtime d and rounds interleaved rounds.
func runCoroMicros(d time.Duration, rounds int) ([]Row, error) {
	if !stackful.RawSwitch {
		return nil, fmt.Errorf("the coroswitch child was built without the cogen_coroswitch tag")
	}
	return runMicros(coroMicros(), settings{benchtime: d, rounds: rounds}, nil)
}

// runCoroswitch builds the coroswitch binary, runs its child and returns
// its rows, each noted with its ratio to the iter.Pull anchor of its
// measure in the same child.
func runCoroswitch(s settings, p *progress) ([]Row, error) {
	exe, rm, err := buildNested(p, ".", "./cmd/cobench", "cobench-coroswitch", "the cogen_coroswitch build",
		"-tags", "cogen_coroswitch", "-ldflags=-checklinkname=0")
	if err != nil {
		return nil, fmt.Errorf("-coroswitch: %w", err)
	}
	defer rm()
	coroExe = exe
	defer func() { coroExe = "" }()
	var rows []Row
	p.step("coroswitch build: %d micro benchmarks, %d rounds", len(coroMicros()), s.rounds)
	if err := p.during(func() error {
		return runChild(task{Kind: "coromicro", D: s.benchtime, N: s.rounds}, 10*time.Minute, &rows)
	}); err != nil {
		return nil, err
	}
	anchor := map[string]float64{}
	for _, r := range rows {
		if strings.HasPrefix(r.Model, "iter.Pull") {
			anchor[r.Measure] = r.Value
		}
	}
	var out []Row
	for _, r := range rows {
		if !strings.HasPrefix(r.Model, "stackful") {
			continue
		}
		if a := anchor[r.Measure]; a > 0 {
			r.Note = joinNote(r.Note, fmt.Sprintf("%.2f× iter.Pull in the same child", r.Value/a))
		}
		r.Model += coroSuffix
		r.Base = false
		out = append(out, r)
	}
	return out, nil
}

// insertCoroRows puts each coroswitch row after the last row of its
// measure, so that the table keeps a measure's rows together.
func insertCoroRows(rows, coro []Row) []Row {
	for _, c := range coro {
		at := len(rows)
		for i := range rows {
			if rows[i].Measure == c.Measure {
				at = i + 1
			}
		}
		rows = append(rows[:at], append([]Row{c}, rows[at:]...)...)
	}
	return rows
}

// coroExe is the built coroswitch binary while runCoroswitch runs.
var coroExe string
