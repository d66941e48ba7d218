//go:build linux

package stackless

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/taskpanic"
	"github.com/cogen-go/cogen/runtime/loop"
)

// The frames below are written by hand in the shape cogen generates for
// //co:stackless durable functions: jobFrame loops n times over a
// Gosched, a Sleep and a call of stepFrame, keeps a map and two pointers
// that share one int, and traces what it does into its loop's trace.

var (
	traces = map[*loop.Loop]*[]string{}
	// onSuspend is called each time a test frame is about to suspend, in
	// its step, before the operation.
	onSuspend = func(t *Task) {}
)

// suspending calls onSuspend unless the operation that follows is the call
// made again after a wake-up, which does not suspend.
func suspending(t *Task) {
	if !t.waking {
		onSuspend(t)
	}
}

func trace(t *Task, format string, args ...any) {
	if tr := traces[t.Loop()]; tr != nil {
		*tr = append(*tr, fmt.Sprintf(format, args...))
	}
}

type jobFrame struct {
	Base
	n, i  int
	name  string
	seen  map[string]int
	p, q  *int // p and q point to one int
	child *stepFrame
}

func newJob(name string, n int) *jobFrame {
	v := new(int)
	return &jobFrame{name: name, n: n, seen: map[string]int{}, p: v, q: v}
}

func (f *jobFrame) Step(t *Task) Status {
	for {
		switch f.PC {
		case 0:
			if f.i >= f.n {
				trace(t, "%s done *p=%d seen=%v", f.name, *f.p, f.seen)
				return Done
			}
			trace(t, "%s i=%d *q=%d", f.name, f.i, *f.q)
			// uint: a restored i may be negative (FuzzRestore's bytes), and
			// the frame's PC must still be one of its resume points.
			f.PC = 1 + int(uint(f.i)%3)
		case 1:
			suspending(t)
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			f.seen["gosched"]++
			f.i++
			f.PC = 0
		case 2:
			suspending(t)
			t.Sleep(time.Millisecond)
			if t.Blocked() {
				return Suspend
			}
			f.seen["sleep"]++
			f.i++
			f.PC = 0
		case 3:
			f.child = &stepFrame{p: f.p}
			f.PC = 4
			return t.Call(f.child)
		case 4:
			*f.q += f.child.r
			f.child = nil
			f.i++
			f.PC = 0
		default:
			panic("jobFrame: invalid resume point")
		}
	}
}

func (f *jobFrame) Durable() (string, uint64) { return "stackless_test.job", 0x10b }

func (f *jobFrame) EncodeState(e *Encoder) {
	e.Int(int64(f.n))
	e.Int(int64(f.i))
	e.String(f.name)
	e.Len(len(f.seen), f.seen == nil)
	for _, k := range slices.Sorted(maps.Keys(f.seen)) {
		e.String(k)
		e.Int(int64(f.seen[k]))
	}
	for _, p := range []*int{f.p, f.q} {
		if e.Ref(p) {
			e.Int(int64(*p))
		}
	}
	e.Callee(f.child)
}

func (f *jobFrame) DecodeState(d *Decoder) {
	f.n = int(d.Int())
	f.i = int(d.Int())
	f.name = d.String()
	if n := d.Len(); n >= 0 {
		f.seen = make(map[string]int, n)
		for range n {
			k := d.String()
			f.seen[k] = int(d.Int())
		}
	}
	for _, p := range []**int{&f.p, &f.q} {
		switch v, fresh := d.Ref(); {
		case fresh:
			*p = new(int)
			d.Define(*p)
			**p = int(d.Int())
		case v != nil:
			ip, ok := v.(*int)
			if !ok {
				d.WrongType("*int", v)
			}
			*p = ip
		}
	}
	if c := d.Callee(); c != nil {
		sf, ok := c.(*stepFrame)
		if !ok {
			d.WrongType("*stepFrame", c)
		}
		f.child = sf
	}
	d.CheckResume(f.PC, ResumePoint{PC: 0, Kind: ResumeEntry}, ResumePoint{PC: 1, Kind: ResumeGosched},
		ResumePoint{PC: 2, Kind: ResumeSleep}, ResumePoint{PC: 4, Kind: ResumeCall, Callee: f.child != nil})
}

type stepFrame struct {
	Base
	p    *int
	j, r int
}

func (f *stepFrame) Step(t *Task) Status {
	for {
		switch f.PC {
		case 0:
			if f.j == 2 {
				return Done
			}
			f.PC = 1
		case 1:
			suspending(t)
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			*f.p++
			f.r += *f.p
			f.j++
			f.PC = 0
		default:
			panic("stepFrame: invalid resume point")
		}
	}
}

func (f *stepFrame) Durable() (string, uint64) { return "stackless_test.step", 0x5e9 }

func (f *stepFrame) EncodeState(e *Encoder) {
	if e.Ref(f.p) {
		e.Int(int64(*f.p))
	}
	e.Int(int64(f.j))
	e.Int(int64(f.r))
}

func (f *stepFrame) DecodeState(d *Decoder) {
	d.CheckResume(f.PC, ResumePoint{PC: 0, Kind: ResumeEntry}, ResumePoint{PC: 1, Kind: ResumeGosched})
	switch v, fresh := d.Ref(); {
	case fresh:
		f.p = new(int)
		d.Define(f.p)
		*f.p = int(d.Int())
	case v != nil:
		ip, ok := v.(*int)
		if !ok {
			d.WrongType("*int", v)
		}
		f.p = ip
	}
	f.j = int(d.Int())
	f.r = int(d.Int())
}

func init() {
	RegisterDurable("stackless_test.job", 0x10b, func() DurableFrame { return new(jobFrame) })
	RegisterDurable("stackless_test.step", 0x5e9, func() DurableFrame { return new(stepFrame) })
}

// tracedLoop returns a loop whose test frames trace into the result.
func tracedLoop(t testing.TB) (*loop.Loop, *[]string) {
	l := newLoop(t)
	tr := new([]string)
	traces[l] = tr
	t.Cleanup(func() { delete(traces, l) })
	return l, tr
}

// snapshotAt runs a job on a fresh loop until its k-th suspension (from 1)
// and returns the snapshot taken there, with the trace so far; ok is false
// if the job finished first. A stopper task in Yield is resumed by the
// k-th suspension and, queued ahead of the job, takes the snapshot before
// the job steps again.
func snapshotAt(t testing.TB, k int, job func() Frame) (data []byte, prefix []string, ok bool) {
	data, prefix, ok, err := trySnapshotAt(t, k, job)
	if err != nil {
		t.Fatalf("Snapshot at suspension %d: %v", k, err)
	}
	return data, prefix, ok
}

// trySnapshotAt is snapshotAt returning the error of Snapshot.
func trySnapshotAt(t testing.TB, k int, job func() Frame) (data []byte, prefix []string, ok bool, snapErr error) {
	l, tr := tracedLoop(t)
	var target *Task
	count := 0
	stopper := Spawn(l, newFn(func(tk *Task, pc *int) Status {
		switch *pc {
		case 0:
			*pc = 1
			tk.Yield()
			return Suspend
		default:
			tk.Yield()
			if count != k {
				snapErr = fmt.Errorf("the job went on to suspension %d first", count)
				return Done
			}
			prefix = slices.Clone(*tr)
			data, snapErr = Snapshot(target)
			target.Cancel()
			delete(traces, l) // the canceled job goes on, untraced
			return Done
		}
	}))
	onSuspend = func(tk *Task) {
		if tk != target {
			return
		}
		if count++; count == k {
			stopper.Resume()
		}
	}
	defer func() { onSuspend = func(*Task) {} }()
	target = Spawn(l, job())
	run(t, l, 10*time.Second, target)
	if count < k {
		return nil, *tr, false, nil
	}
	run(t, l, 10*time.Second, stopper)
	return data, prefix, true, snapErr
}

// TestDurableEverySuspension: for every suspension point k of a job, the
// trace of a run snapshotted there and restored into a fresh loop, through
// bytes, equals the trace of an uninterrupted run.
func TestDurableEverySuspension(t *testing.T) {
	job := func() Frame { return newJob("a", 7) }
	l, want := tracedLoop(t)
	run(t, l, 10*time.Second, Spawn(l, job()))
	if len(*want) != 8 || !strings.Contains((*want)[7], "a done *p=20 seen=map[gosched:3 sleep:2]") {
		t.Fatalf("uninterrupted trace: %q", *want)
	}
	for k := 1; ; k++ {
		data, prefix, ok := snapshotAt(t, k, job)
		if !ok {
			if k != 10 {
				t.Fatalf("%d suspensions, want 9", k-1)
			}
			break
		}
		l2, tr2 := tracedLoop(t)
		task, err := Restore(l2, data)
		if err != nil {
			t.Fatalf("Restore at suspension %d: %v", k, err)
		}
		run(t, l2, 10*time.Second, task)
		if got := append(prefix, *tr2...); !slices.Equal(got, *want) {
			t.Errorf("suspension %d (%d bytes):\n got %q\nwant %q", k, len(data), got, *want)
		}
	}
}

// TestDurableSharedPointer: two fields that point to one int restore to
// one int, also across frames (the caller's p and the callee's p).
func TestDurableSharedPointer(t *testing.T) {
	// Suspension 4 is the callee's first Gosched (i=2).
	data, _, ok := snapshotAt(t, 4, func() Frame { return newJob("s", 4) })
	if !ok {
		t.Fatal("no 4th suspension")
	}
	task, err := Restore(newLoop(t), data)
	if err != nil {
		t.Fatal(err)
	}
	step, ok := task.top.(*stepFrame)
	if !ok {
		t.Fatalf("top frame %T, want the callee", task.top)
	}
	job := task.ext.callers[0].(*jobFrame)
	if job.p != job.q || job.p != step.p || job.child != step {
		t.Fatalf("sharing lost: job.p %p job.q %p step.p %p child %p step %p", job.p, job.q, step.p, job.child, step)
	}
}

// TestDurableSleepDeadline: a sleeper records its absolute deadline: one
// restored before it sleeps the rest, one restored after it wakes at once,
// and neither sleeps its whole duration again.
func TestDurableSleepDeadline(t *testing.T) {
	const d = 300 * time.Millisecond
	l := newLoop(t)
	task := Spawn(l, newFn(func(tk *Task, pc *int) Status {
		*pc = 1
		tk.Sleep(d)
		if tk.Blocked() {
			return Suspend
		}
		return Done
	}))
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	if task.carry != carrySleep {
		t.Fatalf("carry %d, want carrySleep", task.carry)
	}
	deadline := sleepDeadline(task)
	if left := time.Until(deadline); left <= 0 || left > d {
		t.Fatalf("deadline %v from now, want in (0, %v]", left, d)
	}
	// The fn frame is not durable: check the encoding of the wait alone
	// through a job frame sleeping (suspension 2 is its first Sleep).
	data, _, ok := snapshotAt(t, 2, func() Frame { return newJob("z", 3) })
	if !ok {
		t.Fatal("no 2nd suspension")
	}
	_, carry, dl, err := decodeSnapshot(data)
	if err != nil || carry != carrySleep {
		t.Fatalf("carry %d err %v", carry, err)
	}
	if left := time.Until(dl); left > time.Millisecond {
		t.Fatalf("deadline %v from now, want at most the 1ms sleep", left)
	}
	// Restored later, the 1 ms sleep is over: the task goes on at once.
	start := time.Now()
	l2 := newLoop(t)
	rt, err := Restore(l2, data)
	if err != nil {
		t.Fatal(err)
	}
	if !rt.Blocked() || rt.carry != carrySleep {
		t.Fatalf("restored sleeper: blocked %v carry %d", rt.Blocked(), rt.carry)
	}
	run(t, l2, 10*time.Second, rt)
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("restored task took %v", el)
	}
}

// TestDurableRemainingSleep: a snapshot of a sleep carries its deadline,
// not its length: restored at once, a task sleeps what was left of the
// sleep, no more, and wakes no earlier than the deadline; the retried Sleep
// does not sleep again.
//
// Nothing here is a guess about how soon a loop gets a core: the first
// part compares deadlines, not times slept (one second passes between the
// sleep's start and the restore, so sleeping the whole hour again would put
// the restored deadline a second or more after the original; reading the
// clocks takes microseconds, and the bound is half a second); the second
// runs a short sleep to its end and checks only that it did not end early
// and that the frame finished once.
func TestDurableRemainingSleep(t *testing.T) {
	const gap = time.Second
	l := newLoop(t)
	long := Spawn(l, &sleeperFrame{d: time.Hour})
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	want := sleepDeadline(long)
	time.Sleep(gap)
	data, err := Snapshot(long)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := Restore(newLoop(t), data)
	if err != nil {
		t.Fatal(err)
	}
	if d := sleepDeadline(rt).Sub(want); d < -gap/2 || d > gap/2 {
		t.Fatalf("restored sleeper's deadline is %v from the original's, want within %v (the whole sleep again: %v or more)", d, gap/2, gap)
	}

	sleeperRuns = 0
	const d = 200 * time.Millisecond
	start := time.Now()
	task := Spawn(l, &sleeperFrame{d: d})
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	if data, err = Snapshot(task); err != nil {
		t.Fatal(err)
	}
	rt, err = Restore(newLoop(t), data)
	if err != nil {
		t.Fatal(err)
	}
	run(t, rt.Loop(), 10*time.Second, rt)
	if el := time.Since(start); el < d {
		t.Fatalf("restored sleeper woke %v after the sleep began, before its %v deadline", el, d)
	}
	if sleeperRuns != 1 {
		t.Fatalf("sleeper finished %d times, want 1", sleeperRuns)
	}
}

var sleeperRuns int

type sleeperFrame struct {
	Base
	d time.Duration
}

func (f *sleeperFrame) Step(t *Task) Status {
	if f.PC == 0 {
		f.PC = 1
	}
	t.Sleep(f.d)
	if t.Blocked() {
		return Suspend
	}
	sleeperRuns++
	return Done
}
func (f *sleeperFrame) Durable() (string, uint64) { return "stackless_test.sleeper", 1 }
func (f *sleeperFrame) EncodeState(e *Encoder)    { e.Int(int64(f.d)) }
func (f *sleeperFrame) DecodeState(d *Decoder)    { f.d = time.Duration(d.Int()) }

func init() {
	RegisterDurable("stackless_test.sleeper", 1, func() DurableFrame { return new(sleeperFrame) })
}

// TestDurableYield: a task in Yield restores in Yield: it waits for Resume.
func TestDurableYield(t *testing.T) {
	l := newLoop(t)
	task := Spawn(l, &yielderFrame{})
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	data, err := Snapshot(task)
	if err != nil {
		t.Fatal(err)
	}
	l2 := newLoop(t)
	rt, err := Restore(l2, data)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := l2.RunOnce(); err != nil {
			t.Fatal(err)
		}
	}
	if rt.Done() {
		t.Fatal("restored yielder finished without Resume")
	}
	rt.Resume()
	run(t, l2, 10*time.Second, rt)
	if f := rt.top; f != nil {
		t.Fatalf("top %T after finishing", f)
	}
}

// TestDurableResumedYield: a task in Yield that was Resumed but has not
// run since snapshots as runnable: restored, it goes on without a second
// Resume (the wake-up is not lost).
func TestDurableResumedYield(t *testing.T) {
	l := newLoop(t)
	task := Spawn(l, &yielderFrame{})
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	task.Resume()
	data, err := Snapshot(task)
	if err != nil {
		t.Fatal(err)
	}
	task.Cancel()
	l2 := newLoop(t)
	rt, err := Restore(l2, data)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3 && !rt.Done(); i++ {
		if err := l2.RunOnce(); err != nil {
			t.Fatal(err)
		}
	}
	if !rt.Done() {
		t.Fatal("a Resumed yielder restored waiting for a second Resume")
	}
}

type yielderFrame struct{ Base }

func (f *yielderFrame) Step(t *Task) Status {
	f.PC = 1
	t.Yield()
	if t.Blocked() {
		return Suspend
	}
	return Done
}
func (f *yielderFrame) Durable() (string, uint64) { return "stackless_test.yielder", 2 }
func (f *yielderFrame) EncodeState(e *Encoder)    {}
func (f *yielderFrame) DecodeState(d *Decoder)    {}

func init() {
	RegisterDurable("stackless_test.yielder", 2, func() DurableFrame { return new(yielderFrame) })
}

// TestDurableRefusals: what cannot be carried is refused with a clear error.
func TestDurableRefusals(t *testing.T) {
	l := newLoop(t)
	var c Cond
	waiter := Spawn(l, newFn(func(tk *Task, pc *int) Status {
		*pc = 1
		tk.Wait(&c, -1)
		if tk.Blocked() {
			return Suspend
		}
		return Done
	}))
	plain := Spawn(l, newFn(func(tk *Task, pc *int) Status {
		*pc = 1
		tk.Yield()
		if tk.Blocked() {
			return Suspend
		}
		return Done
	}))
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		task *Task
		want string
	}{
		{waiter, "waits on an fd, a Cond"},
		{plain, "frame *stackless.fn"},
	} {
		_, err := Snapshot(tc.task)
		if !errors.Is(err, ErrNotCarriable) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Snapshot: %v, want ErrNotCarriable mentioning %q", err, tc.want)
		}
	}
	c.Broadcast()
	plain.Resume()
	run(t, l, 10*time.Second, waiter, plain)
	if _, err := Snapshot(waiter); err == nil || !strings.Contains(err.Error(), "finished") {
		t.Errorf("Snapshot of a finished task: %v", err)
	}
	sl := Spawn(l, &sleeperFrame{d: time.Hour})
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	sl.Cancel()
	if _, err := Snapshot(sl); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("Snapshot of a canceled task: %v", err)
	}
}

// TestDurableChangedCode: bytes of a frame whose fingerprint differs from
// the program's are refused, naming the function; so is an unknown name.
func TestDurableChangedCode(t *testing.T) {
	data, err := Snapshot(Spawn(newLoop(t), newJob("c", 2)))
	if err != nil {
		t.Fatal(err)
	}
	RegisterDurable("stackless_test.jo2", 7, func() DurableFrame { return new(jobFrame) })
	for _, tc := range []struct {
		old, new, want string
		is             error
	}{
		{"stackless_test.job", "stackless_test.jo2", "frame of stackless_test.jo2: the function changed", ErrChangedCode},
		{"stackless_test.job", "stackless_test.jo_", "frame of stackless_test.jo_: no such durable function", nil},
	} {
		bad := []byte(strings.Replace(string(data[:len(data)-4]), tc.old, tc.new, 1))
		bad = appendCRC(bad)
		_, err := Restore(newLoop(t), bad)
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("Restore: %v, want %q", err, tc.want)
		}
	}
	// A task that had not started restores and runs.
	l, tr := tracedLoop(t)
	rt, err := Restore(l, data)
	if err != nil {
		t.Fatal(err)
	}
	run(t, l, 10*time.Second, rt)
	if len(*tr) != 3 {
		t.Fatalf("trace %q", *tr)
	}
}

func appendCRC(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// FuzzRestore: random, truncated and corrupted bytes give an error, never
// a panic; bytes whose checksum the fuzzer fixed up reach the decoder, and
// what it accepts re-encodes to the same bytes (no value is misread).
func FuzzRestore(f *testing.F) {
	for k := 1; k <= 9; k += 4 {
		data, _, ok := snapshotAt(f, k, func() Frame { return newJob("f", 7) })
		if ok {
			f.Add(data)
		}
	}
	if data, _, ok := snapshotAt(f, 2, func() Frame { return new(patternFrame) }); ok {
		f.Add(data) // values carried by codecs (codec_test.go)
	}
	if data, _, ok := snapshotAt(f, 1, func() Frame { return newBlob([]byte{0, 0x80, 0xff}) }); ok {
		f.Add(data) // byte slices and arrays (durablebytes_test.go)
	}
	f.Add(snapshotV1) // refused: format version 1
	f.Add([]byte("CGDS"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, fixCRC(data)} {
			l, err := loop.New()
			if err != nil {
				t.Fatal(err)
			}
			task, err := Restore(l, wakeNow(in))
			if err != nil {
				l.Close()
				continue
			}
			for i := 0; i < len(in)-4; i++ {
				if _, err := Restore(l, fixCRC(in[:i])); err == nil {
					t.Fatalf("a %d-byte prefix of an accepted snapshot restored", i)
				}
			}
			runRestored(t, l, task)
			l.Close()
		}
	})
}

// runRestored runs a restored task to its end, resuming it whenever it
// yields (wakeNow moved a sleeper's deadline to the epoch), for at most 10,000 loop iterations
// and one second, and fails t if it panicked outside the frames' own Step
// code: in runtime/stackless, with a "stackless:" value (a misuse), or at
// an unknown resume point. A panic of a frame's Step on values the fuzzer
// made up (a nil map the frame never holds) is the frame's, as it would
// be on such values in any run.
func runRestored(t *testing.T, l *loop.Loop, task *Task) {
	t.Helper()
	var outside string
	taskpanic.Hook = func(v any) {
		fn, file, line := taskpanic.Site()
		s, _ := v.(string)
		if strings.HasPrefix(s, "stackless:") || strings.Contains(s, "invalid resume point") ||
			(strings.Contains(fn, "cogen/runtime/") && !strings.HasSuffix(file, "_test.go")) {
			outside = fmt.Sprintf("%v, raised in %s (%s:%d)", v, fn, file, line)
		}
	}
	defer func() { taskpanic.Hook = nil }()
	var guard loop.Timer
	l.Reset(&guard, time.Second, func() { l.Close() })
	iters := 0
	_ = l.Run(func() bool {
		task.Resume()
		iters++
		return task.Done() || iters > 10000
	})
	l.CancelTimer(&guard)
	if outside != "" {
		t.Fatalf("a restored task panicked outside its frames' code: %s", outside)
	}
}

// fixCRC replaces the last 4 bytes of b with the checksum of the rest.
func fixCRC(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	return appendCRC(slices.Clone(b[:len(b)-4]))
}

// wakeNow returns data with the deadline of a sleeping task, if it has
// one, moved to the epoch (and the checksum fixed if it was right), so
// that a restored sleeper wakes at once; other bytes are returned as they
// are.
func wakeNow(data []byte) []byte {
	if len(data) < 10 || string(data[:4]) != snapshotMagic {
		return data
	}
	i := 4
	if _, n := binary.Uvarint(data[i:]); n > 0 {
		i += n
	} else {
		return data
	}
	if i >= len(data) || data[i] != carrySleep {
		return data
	}
	_, n := binary.Varint(data[i+1:])
	if n <= 0 || i+1+n > len(data)-4 {
		return data
	}
	out := append(slices.Clone(data[:i+1]), 0)
	out = append(out, data[i+1+n:len(data)-4]...)
	if !slices.Equal(fixCRC(data), data) {
		return append(out, 0, 0, 0, 0) // the checksum was wrong: keep it wrong
	}
	return appendCRC(out)
}
