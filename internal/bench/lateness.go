//go:build unix

package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// LatenessModels are the models SleepLateness runs.
var LatenessModels = []string{"stackful", "stackless", "time.Sleep"}

// LatenessSleep is the sleep SleepLateness measures.
const LatenessSleep = 10 * time.Millisecond

// SleepLateness sleeps d, b.N times one after the other, in one coroutine of
// the model (see Lateness) and reports how late the wake-ups were: the
// metrics us-late-mean, us-late-p50 and us-late-p99, in microseconds. A
// wake-up before its deadline fails the benchmark.
func SleepLateness(b *testing.B, model string, d time.Duration) {
	late, err := Lateness(model, b.N, d)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	r := LatenessOf(late)
	if r.Early > 0 {
		b.Fatalf("%s: %d of %d sleeps of %v woke early", model, r.Early, b.N, d)
	}
	us := func(x time.Duration) float64 { return float64(x) / float64(time.Microsecond) }
	b.ReportMetric(us(r.Mean), "us-late-mean")
	b.ReportMetric(us(r.P50), "us-late-p50")
	b.ReportMetric(us(r.P99), "us-late-p99")
}

// Lateness sleeps d, n times one after the other, in one coroutine of the
// model (a stackful coroutine calling Co.Sleep, a stackless task calling
// Task.Sleep, or the calling goroutine calling time.Sleep), and returns how
// late each wake-up was. Every model takes its deadline from time.Now before
// the call and its wake-up from time.Now after it.
func Lateness(model string, n int, d time.Duration) ([]time.Duration, error) {
	late := make([]time.Duration, 0, n)
	sleep := func(sleep func()) {
		due := time.Now().Add(d)
		sleep()
		late = append(late, time.Since(due))
	}
	switch model {
	case "stackful":
		e, err := stackful.NewEnv()
		if err != nil {
			return nil, err
		}
		defer e.Close()
		done := false
		e.Create(func(co *stackful.Co) {
			for range n {
				sleep(func() { co.Sleep(d) })
			}
			done = true
		}, nil).Resume()
		if err := e.Run(func() bool { return done }); err != nil {
			return nil, err
		}
	case "stackless":
		l, err := loop.New()
		if err != nil {
			return nil, err
		}
		defer l.Close()
		f := &latenessFrame{d: d, late: late}
		if err := stackless.Run(l, stackless.Spawn(l, f)); err != nil {
			return nil, err
		}
		late = f.late
	case "time.Sleep":
		for range n {
			sleep(func() { time.Sleep(d) })
		}
	default:
		return nil, fmt.Errorf("bench: unknown lateness model %q", model)
	}
	return late, nil
}

// A LatenessResult summarizes wake-up latenesses.
type LatenessResult struct {
	N              int
	Mean, P50, P99 time.Duration
	Early          int // wake-ups before the deadline (must be 0)
}

// LatenessOf summarizes late, which it sorts.
func LatenessOf(late []time.Duration) LatenessResult {
	r := LatenessResult{N: len(late)}
	if len(late) == 0 {
		return r
	}
	slices.Sort(late)
	var sum time.Duration
	for _, x := range late {
		sum += x
		if x < 0 {
			r.Early++
		}
	}
	r.Mean = sum / time.Duration(len(late))
	r.P50, r.P99 = late[len(late)/2], late[len(late)*99/100]
	return r
}

// latenessFrame is the frame of
//
//	func sleepLoop(t *Task, d time.Duration, late *[]time.Duration) {
//		for len(*late) < cap(*late) {
//			due := time.Now().Add(d)
//			t.Sleep(d)
//			*late = append(*late, time.Since(due))
//		}
//	}
type latenessFrame struct {
	stackless.Base
	d    time.Duration
	due  time.Time
	late []time.Duration
}

func (f *latenessFrame) Step(t *stackless.Task) stackless.Status {
	for {
		if f.PC == 0 {
			if len(f.late) == cap(f.late) {
				return stackless.Done
			}
			f.due = time.Now().Add(f.d)
			f.PC = 1
		}
		t.Sleep(f.d)
		if t.Blocked() {
			return stackless.Suspend
		}
		f.late = append(f.late, time.Since(f.due))
		f.PC = 0
	}
}
