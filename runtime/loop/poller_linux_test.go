//go:build linux && !cogen_netpoll

package loop

import (
	"testing"
	"time"
)

// TestTimeoutModes runs timed sleeps on a loop in each of the epoller's
// timeout modes: every sleep wakes, never before its deadline on the loop
// clock or on time.Now, and without spinning (a few polls per sleep). The
// precise modes' lateness is logged beside the millisecond mode's.
func TestTimeoutModes(t *testing.T) {
	t.Logf("this kernel: %v", bestTimeoutMode())
	modes := []timeoutMode{timeoutTimerfd, timeoutMs}
	if bestTimeoutMode() == timeoutPwait2 {
		modes = append(modes, timeoutPwait2)
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			p, err := newEpoller(mode)
			if err != nil {
				t.Fatal(err)
			}
			l := withPoller(p)
			defer l.Close()
			const n = 20
			var total time.Duration
			done := 0
			var w Waiter
			var due time.Time
			var when time.Duration
			sleep := func() {
				d := time.Duration(300+done*97) * time.Microsecond
				due, when = time.Now().Add(d), l.Now()+d
				w.Sleep(d)
			}
			w.Init(l, fnRunner(func() {
				late := time.Since(due)
				if late < 0 || l.Now() < when {
					t.Errorf("sleep %d woke early: %v", done, -late)
				}
				total += late
				if done++; done < n {
					sleep()
				}
			}))
			sleep()
			runUntil(t, l, 10*time.Second, func() bool { return done == n })
			polls := l.Stats().Polls
			if polls > 4*n {
				t.Errorf("%d polls for %d sleeps: the wait spins", polls, n)
			}
			t.Logf("%v: mean lateness %v, %d polls for %d sleeps", mode, total/n, polls, n)
		})
	}
}

// TestTimerfdDisarmed: a timerfd armed for a timeout that did not expire is
// disarmed before an untimed wait, so it cannot wake an idle loop later.
func TestTimerfdDisarmed(t *testing.T) {
	p, err := newEpoller(timeoutTimerfd)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	none := func(fd int, ev Events) { t.Errorf("event on fd %d", fd) }
	p.wake()
	if _, err := p.wait(30*time.Millisecond, none); err != nil { // the wake ends it at once
		t.Fatal(err)
	}
	if !p.tfdSet {
		t.Fatal("timerfd not armed for a timed wait")
	}
	p.wake()
	if _, err := p.wait(-1, none); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	n, err := p.wait(0, none)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 || p.tfdSet {
		t.Fatalf("%d events (armed %v) after the timed wait was abandoned", n, p.tfdSet)
	}
}

// pollerFDs is how many descriptors New opens: epoll and its eventfd.
const pollerFDs = 2
