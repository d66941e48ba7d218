package loop

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Hang forensics: every open loop is known to a process-wide registry, so
// that a program which seems stuck can say what each loop still waits for
// (DumpAll), next to the goroutine dump that shows where each goroutine is.
// A loop leaves the registry when it is closed; one that is dropped without
// Close stays in it (its poller's descriptors stay open too).

var (
	liveMu sync.Mutex
	live   = map[*Loop]struct{}{}
)

func track(l *Loop) {
	liveMu.Lock()
	live[l] = struct{}{}
	liveMu.Unlock()
}

func untrack(l *Loop) {
	liveMu.Lock()
	delete(live, l)
	liveMu.Unlock()
}

// A Describer is a Runner that can say what it is and where it waits, for
// dumps: a stackless task gives the source position of its resume point.
type Describer interface {
	Describe() string
}

// Dump writes what l waits for: its counters, and one line per armed waiter
// with its runner, its source (an fd and direction, a Cond, or nothing) and
// its deadline. Call it on the loop goroutine, or while the loop is not
// running.
func (l *Loop) Dump(w io.Writer) {
	st := l.stats
	fmt.Fprintf(w, "loop %p: %d fds registered, %d waiters armed, %d queued, %d polls, %d runs, closed=%v\n",
		l, len(l.fdsInUse()), st.Armed, l.ready.len(), st.Polls, st.Runs, l.closed)
	n := 0
	for wt := l.armedHead; wt != nil; wt = wt.pnext {
		if n == 100 {
			fmt.Fprintf(w, "\t... %d more\n", st.Armed-n)
			break
		}
		n++
		fmt.Fprintf(w, "\t%s\n", wt.describe(l))
	}
}

// fdsInUse lists the registered fds.
func (l *Loop) fdsInUse() []int {
	var fds []int
	for i, f := range l.fds {
		if f != nil {
			fds = append(fds, i)
		}
	}
	return fds
}

// describe says what an armed waiter waits for.
func (w *Waiter) describe(l *Loop) string {
	who := w.describeRunner()
	if w.runner == nil && w.parent != nil {
		who = "poll child of " + w.parent.describeRunner()
	}
	what := "parked"
	switch {
	case w.fd != nil && w.dir == fdRead:
		what = fmt.Sprintf("reading fd %d", w.fd.fd)
	case w.fd != nil:
		what = fmt.Sprintf("writing fd %d", w.fd.fd)
	case w.cond != nil:
		what = fmt.Sprintf("waiting on cond %p", w.cond)
	}
	if d := w.deadline; d != nil && d.Scheduled() {
		what += fmt.Sprintf(", deadline in %v", time.Duration(d.when-l.nanotime()))
	}
	return who + ": " + what
}

func (w *Waiter) describeRunner() string {
	if d, ok := w.runner.(Describer); ok {
		return d.Describe()
	}
	return fmt.Sprintf("%T", w.runner)
}

// DumpAll writes every open loop's Dump to w. Each dump runs on its loop's
// goroutine through Submit; a loop that does not answer within wait is not
// in its poller (its goroutine is blocked elsewhere, or busy), and its
// state is then read without synchronization, which is only fit for a
// post-mortem: the goroutine dump that should accompany it tells where
// that loop's goroutine is.
func DumpAll(w io.Writer, wait time.Duration) {
	liveMu.Lock()
	loops := make([]*Loop, 0, len(live))
	for l := range live {
		loops = append(loops, l)
	}
	liveMu.Unlock()
	fmt.Fprintf(w, "%d open event loops\n", len(loops))
	for _, l := range loops {
		done := make(chan struct{})
		var mu sync.Mutex // serialises the writes of a late answer with ours
		if err := l.Submit(func() {
			mu.Lock()
			defer mu.Unlock()
			select {
			case <-done:
				return // too late: the unsynchronized dump was written
			default:
			}
			l.Dump(w)
			close(done)
		}); err != nil {
			fmt.Fprintf(w, "loop %p: %v\n", l, err)
			continue
		}
		select {
		case <-done:
		case <-time.After(wait):
			mu.Lock()
			select {
			case <-done:
			default:
				close(done)
				fmt.Fprintf(w, "loop %p: no answer within %v: its goroutine is not in the poller; unsynchronized read:\n", l, wait)
				l.Dump(w)
			}
			mu.Unlock()
		}
	}
}
