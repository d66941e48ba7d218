//go:build linux

package main

import (
	"math/rand/v2"
	"sort"
	"time"
)

// timerStats collects sleep lateness for one model. It is used on one
// loop's goroutine only.
type timerStats struct {
	rng   *rand.Rand
	stop  bool
	n     int
	early int
	worst time.Duration // earliest wake-up, as a negative lateness, if any
	late  []time.Duration
}

func newTimerStats(seed uint64) *timerStats {
	return &timerStats{rng: rand.New(rand.NewPCG(seed, 7))}
}

// duration is a random sleep in [0, max).
func (s *timerStats) duration(max time.Duration) time.Duration {
	return time.Duration(s.rng.Int64N(int64(max)))
}

// record notes one sleep of d that took took on the loop clock.
func (s *timerStats) record(d, took time.Duration) {
	s.n++
	late := took - d
	if late < 0 {
		s.early++
		s.worst = min(s.worst, late)
	}
	if len(s.late) < 1<<16 {
		s.late = append(s.late, late)
	} else {
		s.late[s.rng.IntN(len(s.late))] = late // a uniform sample of the rest
	}
}

// quantile returns the q-quantile of the recorded lateness.
func (s *timerStats) quantile(q float64) time.Duration {
	if len(s.late) == 0 {
		return 0
	}
	l := append([]time.Duration(nil), s.late...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return l[min(len(l)-1, int(q*float64(len(l))))]
}
