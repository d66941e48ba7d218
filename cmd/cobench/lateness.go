//go:build unix

package main

import (
	"fmt"
	"time"

	"github.com/cogen-go/cogen/internal/bench"
)

// runLateness measures one sleep at a time (bench.LatenessSleep) in each
// model and with time.Sleep, s.rounds rounds interleaved so that every model
// sees the same load, and reports the mean and p99 lateness of the
// wake-ups against time.Sleep's.
func runLateness(s settings, p *progress) ([]Row, error) {
	n := 20 // sleeps per model and round
	if s.rounds == 1 {
		n = 10
	}
	late := make([][]time.Duration, len(bench.LatenessModels))
	for round := range s.rounds {
		for i, model := range bench.LatenessModels {
			p.step("timers: %s sleep lateness (round %d/%d)", model, round+1, s.rounds)
			l, err := bench.Lateness(model, n, bench.LatenessSleep)
			if err != nil {
				return nil, fmt.Errorf("timers: %s lateness: %w", model, err)
			}
			late[i] = append(late[i], l...)
		}
	}
	var refs map[string]string // reference figures cite public sources; none yet
	var rows []Row
	results := make([]bench.LatenessResult, len(late))
	for i, model := range bench.LatenessModels {
		results[i] = bench.LatenessOf(late[i])
		if results[i].Early > 0 {
			return nil, fmt.Errorf("timers: %s: %d sleeps of %v woke early", model, results[i].Early, bench.LatenessSleep)
		}
	}
	title := fmt.Sprintf("one %v sleep at a time (%d each): ", bench.LatenessSleep, len(late[0]))
	add := func(measure string, value func(r bench.LatenessResult) time.Duration, ref map[string]string) {
		for i, model := range bench.LatenessModels {
			r := results[i]
			rows = append(rows, Row{Group: "timers", Measure: title + measure, Model: model,
				Value: ms(value(r)), Unit: "ms", Base: model == "time.Sleep", Reference: ref[model],
				Note: "none early"})
		}
	}
	add("wake-up lateness mean", func(r bench.LatenessResult) time.Duration { return r.Mean }, refs)
	add("wake-up lateness p99", func(r bench.LatenessResult) time.Duration { return r.P99 }, nil)
	return rows, nil
}
