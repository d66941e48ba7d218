//go:build linux

package loop

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
)

const ms = int64(time.Millisecond)

// checkWheelEmpty asserts that w holds nothing at all.
func checkWheelEmpty(t *testing.T, w *wheel) {
	t.Helper()
	if w.n != 0 {
		t.Errorf("wheel.n = %d, want 0", w.n)
	}
	for lv := range wheelLevels {
		if w.occupied[lv] != [2]uint64{} {
			t.Errorf("occupied[%d] = %#x, want 0", lv, w.occupied[lv])
		}
		for s := range wheelSlots {
			checkEmptyArray(t, fmt.Sprintf("slot %d/%d", lv, s), w.slots[lv][s])
		}
	}
	checkEmptyArray(t, "near heap", w.near)
	if _, ok := w.nextAt(); ok {
		t.Error("next reports an event on an empty wheel")
	}
}

// checkEmptyArray asserts that a is empty and holds no stale pointer in
// its spare capacity, which would keep timers alive.
func checkEmptyArray[E comparable](t *testing.T, name string, a []E) {
	t.Helper()
	if len(a) != 0 {
		t.Fatalf("%s holds %d timers", name, len(a))
	}
	var zero E
	for _, e := range a[:cap(a)] {
		if e != zero {
			t.Fatalf("%s keeps a stale timer pointer", name)
		}
	}
}

// TestWheelRandomNeverEarly drives the loop's timers with a fake clock over
// random durations from 0 to days, with random clock jumps (to just before
// and exactly at deadlines, small and large), re-adds and cancels from
// callbacks. After every step a timer has fired if and only if its deadline,
// rounded up to a tick, has passed; within a step timers fire in (deadline,
// insertion) order.
func TestWheelRandomNeverEarly(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	rng := rand.New(rand.NewPCG(1, 2))
	c.now = 7*ms + 123 // start off a tick boundary
	l.RunOnce()

	randDur := func() time.Duration {
		switch rng.IntN(5) {
		case 0:
			return time.Duration(rng.Int64N(3 * ms)) // within a few ticks, sub-tick offsets
		case 1:
			return time.Duration(rng.Int64N(int64(time.Second)))
		case 2:
			return time.Duration(rng.Int64N(int64(time.Hour)))
		case 3:
			return time.Duration(rng.Int64N(int64(10 * 24 * time.Hour)))
		default:
			return time.Duration(rng.Int64N(64)) * time.Millisecond // exact ticks: many equal deadlines
		}
	}

	type rec struct {
		tm        Timer
		fn        func()
		when      int64
		ins       int // insertion number: order of Reset calls
		pending   bool
		fires     int
		cancelled bool
	}
	const n = 8000
	recs := make([]rec, n)
	ins := 0
	reset := func(i int, d time.Duration) {
		r := &recs[i]
		l.Reset(&r.tm, d, r.fn)
		r.when = r.tm.when
		if want := l.Now() + d; d >= 0 && r.when != int64(want) {
			t.Fatalf("timer %d: when %d, want %d", i, r.when, want)
		}
		ins++
		r.ins = ins
		r.pending = true
		r.cancelled = false
	}
	type fired struct {
		when int64
		ins  int
	}
	var stepOrder []fired // fired in the current step, in order
	errs := 0
	for i := range recs {
		recs[i].fn = func() {
			r := &recs[i]
			now := l.now
			if !r.pending {
				t.Errorf("timer %d fired while not pending", i)
			}
			if now < r.when {
				t.Errorf("timer %d fired early: now %d, deadline %d", i, now, r.when)
			}
			r.pending = false
			r.fires++
			stepOrder = append(stepOrder, fired{r.when, r.ins})
			switch rng.IntN(10) {
			case 0: // re-add itself from its own callback
				reset(i, randDur())
			case 1: // cancel another timer, possibly one of this very batch
				j := rng.IntN(n)
				o := &recs[j]
				wasPending := o.pending
				if got := l.CancelTimer(&o.tm); got != wasPending {
					t.Errorf("Stop(%d) = %v, pending %v", j, got, wasPending)
				}
				if wasPending {
					o.pending = false
					o.cancelled = true
				}
			case 2: // re-arm another timer
				j := rng.IntN(n)
				if j != i {
					reset(j, randDur())
				}
			}
		}
	}
	for i := range n / 2 {
		reset(i, randDur())
	}
	next := n / 2

	check := func() {
		now := l.now
		for i := range recs {
			r := &recs[i]
			if r.pending && r.when <= now {
				t.Errorf("timer %d late: deadline %d passed at %d but not fired", i, r.when, now)
				errs++
			}
		}
		for k := 1; k < len(stepOrder); k++ {
			a, b := stepOrder[k-1], stepOrder[k]
			if a.when > b.when || (a.when == b.when && a.ins > b.ins) {
				t.Errorf("fire order: (%d,#%d) before (%d,#%d)", a.when, a.ins, b.when, b.ins)
				errs++
			}
		}
		stepOrder = stepOrder[:0]
		if errs > 10 {
			t.FailNow()
		}
	}

	for step := 0; step < 6000; step++ {
		pick := &recs[rng.IntN(n)]
		switch k := rng.IntN(6); {
		case k <= 1 && pick.pending && pick.when-int64(k) > c.now:
			c.now = pick.when - int64(k) // exactly at, or 1 ns before, a deadline
		case k == 2:
			c.now += rng.Int64N(3 * ms)
		case k == 3:
			c.now += rng.Int64N(int64(time.Second))
		case k == 4:
			c.now += rng.Int64N(int64(6 * time.Hour))
		}
		l.RunOnce()
		if err := l.wheel.check(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		check()
		if next < n && rng.IntN(2) == 0 {
			reset(next, randDur())
			next++
		}
	}
	// Flush: callbacks keep re-adding a few timers, each flush fewer.
	for range 20 {
		c.now += int64(30 * 24 * time.Hour)
		l.RunOnce()
		check()
		if l.wheel.n == 0 {
			break
		}
	}
	total := 0
	for i := range recs {
		if recs[i].pending {
			t.Errorf("timer %d still pending", i)
		}
		total += recs[i].fires
	}
	if total < n/2 {
		t.Errorf("only %d fires", total)
	}
	checkWheelEmpty(t, &l.wheel)
	t.Logf("%d fires, %d timers, stats %+v", total, ins, l.Stats())
}

// TestWheelEqualDeadlineOrder checks that timers with one deadline fire in
// insertion order although they reached the tick by different routes: one
// moved down from level 2 and then from level 1, one placed on level 1, one
// placed straight on level 0 while the first two still waited on level 1 (so
// it sits before them in the slot), one due on arrival. A timer with an
// earlier deadline in the same tick, added last, fires first, and the
// tick's start fires nothing.
func TestWheelEqualDeadlineOrder(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	l.RunOnce()
	const deadline = 300000*ms + ms/2 // tick 300000: level-1 block 4687, level-2 block 73
	var got []string
	var a, b, d, e, f Timer
	add := func(tm *Timer, name string, when int64) {
		l.Reset(tm, time.Duration(when-c.now), func() { got = append(got, name) })
	}
	add(&a, "a", deadline)
	if a.level != 2 || a.slot != 73 {
		t.Fatalf("a at %d/%d, want 2/73", a.level, a.slot)
	}
	c.now = 299100 * ms // level-2 block 73 began at 299008: a moved to level 1
	l.RunOnce()
	if a.level != 1 || a.slot != 4687&127 || a.state != timerWheel {
		t.Fatalf("a at %d/%d state %d after the move, want 1/%d", a.level, a.slot, a.state, 4687&127)
	}
	add(&b, "b", deadline)
	if b.level != 1 || b.slot != a.slot {
		t.Fatalf("b at %d/%d, a at %d/%d", b.level, b.slot, a.level, a.slot)
	}
	c.now = 299950 * ms // in level-1 block 4686: a and b wait in the pending slot
	l.RunOnce()
	add(&d, "d", deadline)
	if d.level != 0 || a.level != 1 || b.level != 1 {
		t.Fatalf("levels: a %d, b %d, d %d; want 1, 1, 0", a.level, b.level, d.level)
	}
	add(&f, "early", 300000*ms+1) // same tick, earlier deadline
	c.now = 300000*ms - 1
	l.RunOnce()
	if a.level != 0 || b.level != 0 || a.state != timerWheel {
		t.Fatalf("a, b on levels %d, %d at the deadline tick's block", a.level, b.level)
	}
	c.now = 300000 * ms // the tick has begun; no deadline has passed
	l.RunOnce()
	if len(got) != 0 || a.state != timerNear || f.state != timerNear {
		t.Fatalf("fired before the deadline: %v", got)
	}
	// e is added at the deadline itself, from the first callback of the
	// batch, so it joins the due list behind the others.
	f.fn = func() {
		got = append(got, "early")
		add(&e, "e", deadline)
	}
	c.now = deadline
	l.RunOnce()
	want := []string{"early", "a", "b", "d", "e"}
	if !slices.Equal(got, want) {
		t.Fatalf("fire order %v, want %v", got, want)
	}
	checkWheelEmpty(t, &l.wheel)
}

// TestWheelEqualDeadlinesMany adds many timers with a handful of deadlines at
// random times while the clock moves, and checks that each deadline's
// timers fire in insertion order.
func TestWheelEqualDeadlinesMany(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	rng := rand.New(rand.NewPCG(3, 4))
	deadlines := []int64{300 * ms, 4096 * ms, 4097*ms + 1, 262144 * ms, 300000 * ms}
	timers := make([]Timer, 5000)
	var got [][2]int64 // (deadline, insertion number)
	k := 0
	for c.now < deadlines[len(deadlines)-1] {
		for range rng.IntN(20) {
			dl := deadlines[rng.IntN(len(deadlines))]
			if dl <= c.now || k == len(timers) {
				continue
			}
			seq := int64(k)
			l.Reset(&timers[k], time.Duration(dl-c.now), func() {
				if l.now < dl {
					t.Errorf("early: %d < %d", l.now, dl)
				}
				got = append(got, [2]int64{dl, seq})
			})
			k++
		}
		c.now += rng.Int64N(2000 * ms)
		l.RunOnce()
		if err := l.wheel.check(); err != nil {
			t.Fatal(err)
		}
	}
	c.now = deadlines[len(deadlines)-1] + ms
	l.RunOnce()
	if len(got) != k {
		t.Fatalf("%d fired, %d added", len(got), k)
	}
	for i := 1; i < len(got); i++ {
		if got[i-1][0] > got[i][0] || (got[i-1][0] == got[i][0] && got[i-1][1] > got[i][1]) {
			t.Fatalf("order broken at %d: %v then %v", i, got[i-1], got[i])
		}
	}
}

func TestWheelCancel(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	l.RunOnce()
	var got []string
	var a, b, x, y, z, self Timer
	logf := func(name string) func() { return func() { got = append(got, name) } }

	// Cancel before firing; Stop reports whether the timer was scheduled.
	l.Reset(&a, 10*time.Millisecond, logf("a"))
	if !a.Scheduled() || !l.CancelTimer(&a) || a.Scheduled() || l.CancelTimer(&a) {
		t.Fatal("Stop of a scheduled timer")
	}
	// Reset replaces the earlier schedule.
	l.Reset(&b, 10*time.Millisecond, logf("b1"))
	l.Reset(&b, 20*time.Millisecond, logf("b2"))

	// x, y, z share a deadline and fire in one batch: x cancels y and
	// re-arms z for later; self re-adds itself from its own callback.
	l.Reset(&x, 30*time.Millisecond, func() {
		got = append(got, "x")
		if !l.CancelTimer(&y) {
			t.Error("Stop(y) from x's callback = false")
		}
		l.Reset(&z, 5*time.Millisecond, logf("z-later"))
	})
	l.Reset(&y, 30*time.Millisecond, logf("y"))
	l.Reset(&z, 30*time.Millisecond, logf("z"))
	n := 0
	var selfFn func()
	selfFn = func() {
		n++
		got = append(got, "self")
		switch n {
		case 1:
			l.Reset(&self, 0, selfFn) // due at once: fires again in this step
		case 2:
			l.Reset(&self, 10*time.Millisecond, selfFn)
		}
	}
	l.Reset(&self, 30*time.Millisecond, selfFn)

	for _, step := range []int64{10, 20, 30, 34, 35, 39, 40, 100} {
		c.now = step * ms
		l.RunOnce()
		got = append(got, "|")
	}
	want := []string{"|", "b2", "|", "x", "self", "self", "|", "|", "z-later", "|", "|", "self", "|", "|"}
	if !slices.Equal(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	if l.CancelTimer(&x) || l.CancelTimer(&self) {
		t.Error("Stop after firing reported true")
	}
	checkWheelEmpty(t, &l.wheel)
	if s := l.Stats(); s.TimersFired != 6 {
		t.Errorf("TimersFired = %d, want 6", s.TimersFired)
	}
}

// TestWheelMillionAddCancel adds and cancels 1e6 timers spread over every
// level and the near heap, directly on the wheel and through the loop, and
// checks that nothing is left and nothing leaks.
func TestWheelMillionAddCancel(t *testing.T) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(5, 6))
	timers := make([]Timer, n)
	order := rng.Perm(n)

	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)

	w := &wheel{cur: 123_456_789}
	for i := range timers {
		tm := &timers[i]
		// Ticks from the past (near heap) to ~139 years ahead, log-spread so
		// every level gets timers.
		tm.when = (w.cur-5+rng.Int64N(int64(1)<<rng.IntN(42)))*tickNs + rng.Int64N(tickNs)
		w.add(tm)
	}
	if w.n != n {
		t.Fatalf("n = %d after adding, want %d", w.n, n)
	}
	for lv := range wheelLevels - 1 {
		if w.occupied[lv] == [2]uint64{} {
			t.Errorf("level %d unused: the test does not spread", lv)
		}
	}
	for _, i := range order {
		if !w.remove(&timers[i]) {
			t.Fatalf("remove %d = false", i)
		}
	}
	checkWheelEmpty(t, w)
	for i := range timers {
		if timers[i].Scheduled() {
			t.Fatalf("timer %d still scheduled after removal", i)
		}
	}

	// The same through the loop's API, twice over the same timers.
	l := newLoop(t)
	fn := func() { t.Error("cancelled timer fired") }
	for range 2 {
		for i := range timers {
			l.Reset(&timers[i], time.Duration(rng.Int64N(int64(45*24*time.Hour))), fn)
		}
		for _, i := range order {
			l.CancelTimer(&timers[i])
		}
		checkWheelEmpty(t, &l.wheel)
	}
	l.RunOnce()

	runtime.GC()
	runtime.ReadMemStats(&ms1)
	if grew := int64(ms1.HeapAlloc) - int64(ms0.HeapAlloc); grew > 4<<20 {
		t.Errorf("heap grew by %d bytes over 2e6 add+cancel", grew)
	}
	runtime.KeepAlive(timers)

	var tm Timer
	if a := testing.AllocsPerRun(1000, func() {
		l.Reset(&tm, time.Duration(rng.Int64N(int64(time.Hour))), fn)
		l.CancelTimer(&tm)
	}); a != 0 {
		t.Errorf("Reset+Stop allocates %v times", a)
	}
}

// TestWheel45Days checks where a 45-day timer lands (level 5: 64^5 ms is
// about 12.4 days) and that it fires at exactly its deadline, through all
// the cascades on the way.
func TestWheel45Days(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	c.now = 12345*ms + 678
	l.RunOnce()
	if l.wheel.cur != 12345 {
		t.Fatalf("cur = %d", l.wheel.cur)
	}
	fired := 0
	var tm Timer
	l.Reset(&tm, 45*24*time.Hour, func() { fired++ })
	const wantTick = 12345 + 45*24*3600*1000 // rounded down: the deadline is 678 ns into it
	if tm.when != wantTick*ms+678 {
		t.Fatalf("when %d", tm.when)
	}
	// 3888012345 = 3*64^5 + ...: its level-4 block (64^5 ticks, about 12.4
	// days) is 3 after cur's, too far for level 4's window (the current and
	// the next level-4 block), and its level-5 block is cur's: level 5, in
	// the slot of level-5 block 3.
	if wantTick>>30-12345>>30 != 3 || wantTick>>36 != 12345>>36 {
		t.Fatal("arithmetic")
	}
	if tm.level != 5 || tm.slot != 3 || l.wheel.occupied[5] != [2]uint64{1 << 3, 0} {
		t.Fatalf("45-day timer at level %d slot %d (occupied %#x), want 5/3", tm.level, tm.slot, l.wheel.occupied[5])
	}
	levels := []uint8{tm.level}
	for c.now+int64(time.Hour) < tm.when {
		c.now += int64(time.Hour)
		l.RunOnce()
		if err := l.wheel.check(); err != nil {
			t.Fatal(err)
		}
		if tm.level != levels[len(levels)-1] {
			levels = append(levels, tm.level)
		}
	}
	if fired != 0 {
		t.Fatal("fired early")
	}
	c.now = tm.when - 1
	l.RunOnce()
	if fired != 0 {
		t.Fatalf("fired 1 ns before its deadline (deadline %d, now %d)", tm.when, c.now)
	}
	c.now = tm.when
	l.RunOnce()
	if fired != 1 {
		t.Fatal("did not fire at its deadline")
	}
	for i := 1; i < len(levels); i++ {
		if levels[i] >= levels[i-1] {
			t.Errorf("cascade path %v: not strictly downwards", levels)
		}
	}
	t.Logf("levels on the hourly way down: %v", levels)
	checkWheelEmpty(t, &l.wheel)
}

// TestWheelHugeDurations checks durations beyond the old 2^42-tick (139
// years) span and up to math.MaxInt64: they neither panic nor overflow into
// the past, and fire at their deadline and not before.
func TestWheelHugeDurations(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	c.now = ms + 1
	l.RunOnce()
	year := 365 * 24 * time.Hour
	durs := []time.Duration{140 * year, 200 * year, 292 * year, math.MaxInt64 - time.Hour, math.MaxInt64}
	timers := make([]Timer, len(durs))
	fired := make([]int64, len(durs))
	for i, d := range durs {
		l.Reset(&timers[i], d, func() { fired[i] = l.now })
		if timers[i].when < c.now {
			t.Fatalf("%v: deadline %d wrapped into the past", d, timers[i].when)
		}
	}
	var w Waiter
	w.Init(l, fnRunner(func() {}))
	w.Park(math.MaxInt64) // "forever"
	if to := l.waitTimeout(); to < time.Hour {
		t.Fatalf("waitTimeout = %v", to)
	}
	c.now = int64(1) << 42 * ms // the old span's edge, before the first deadline
	l.RunOnce()
	for i := range durs {
		tm := &timers[i]
		if tm.when == math.MaxInt64 {
			continue // due at the very end of the clock, with the forever park
		}
		c.now = tm.when - 1
		l.RunOnce()
		for j := range durs {
			if fired[j] != 0 && fired[j] < timers[j].when {
				t.Fatalf("%v fired early at %d < %d", durs[j], fired[j], timers[j].when)
			}
		}
		if fired[i] != 0 {
			t.Fatalf("%v fired 1 ns before its deadline", durs[i])
		}
		c.now++
		l.RunOnce()
		if fired[i] != c.now {
			t.Fatalf("%v: fired at %d, want %d", durs[i], fired[i], c.now)
		}
	}
	if !w.Armed() {
		t.Fatalf("forever park woke with %v", w.Reason())
	}
	w.Disarm()
}

// TestWheelMovesSpread checks the look-ahead: 64K timers due in one level-1
// block are moved down to level 0 a share per tick while the block before
// runs, not all at once when their block begins, and every invariant holds
// on the way.
func TestWheelMovesSpread(t *testing.T) {
	const n = 1 << 16
	rng := rand.New(rand.NewPCG(9, 10))
	timers := make([]Timer, n)
	w := &wheel{}
	for i := range timers {
		timers[i].when = (3*64 + rng.Int64N(64)) * tickNs // level-1 block 3
		w.add(&timers[i])
	}
	if w.occupied[1] != [2]uint64{1 << 3, 0} || len(w.slots[1][3]) != n {
		t.Fatalf("not all on level 1 slot 3: %#x", w.occupied[1])
	}
	fired := 0
	fire := func(tm *Timer) {
		if tm.when/tickNs != w.cur {
			t.Fatalf("timer of tick %d fired at %d", tm.when/tickNs, w.cur)
		}
		fired++
	}
	maxMoved := 0
	for now := int64(1); now < 5*64; now++ {
		before := len(w.slots[1][3])
		w.advance(now*tickNs, fire)
		if err := w.check(); err != nil {
			t.Fatalf("tick %d: %v", now, err)
		}
		left := len(w.slots[1][3])
		maxMoved = max(maxMoved, before-left)
		switch {
		case now < 128 && left != n:
			t.Fatalf("tick %d: moved %d before block 2 began", now, n-left)
		case now >= 128 && now < 192:
			// Pending: at most its share per tick, and on schedule.
			if want := (n*(192-int(now)) + 63) / 64; left > want {
				t.Fatalf("tick %d: %d left, want at most %d", now, left, want)
			}
		case now >= 192 && left != 0:
			t.Fatalf("tick %d: %d still on level 1", now, left)
		}
	}
	if fired != n || w.n != 0 {
		t.Fatalf("fired %d of %d, n %d", fired, n, w.n)
	}
	if share := (n + 63) / 64; maxMoved > share+1 {
		t.Fatalf("moved up to %d timers in one tick, want about %d", maxMoved, share)
	}
	checkWheelEmpty(t, w)
}

// TestWheelNextSkipsIdleSpans checks that an empty stretch of the wheel is
// crossed in one step: a lone timer an hour ahead needs at most a few
// poller wake-ups (one per cascade), not one per tick.
func TestWheelNextSkipsIdleSpans(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	fired := false
	l.AfterFunc(time.Hour+time.Millisecond/3, func() { fired = true })
	steps := 0
	for !fired && steps < 100 {
		to := l.waitTimeout()
		if to < 0 {
			t.Fatal("no timeout while a timer is pending")
		}
		c.now += int64(to)
		l.RunOnce()
		steps++
	}
	if !fired || steps > wheelLevels+1 {
		t.Fatalf("fired %v after %d wake-ups", fired, steps)
	}
	if c.now < int64(time.Hour) {
		t.Fatal("early")
	}
}
