package stackless

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/cogen-go/cogen/runtime/stackless/cogenrt"
	"hash/crc32"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// Durable tasks: a suspended task whose frames are all durable is plain
// data (each frame holds exactly the values live at its resume point and
// the point itself), so [Snapshot] turns it into bytes and [Restore] turns
// the bytes back into a task, on any loop, in this process or another one
// running the same code. cogen generates the frames' encoding for functions
// marked //co:stackless durable, and registers each frame type in an init
// function: there is nothing to write by hand.
//
// A task can be carried only while it is suspended where nothing outside
// its frames holds its state: in Gosched or Yield (checkpoints) or in Sleep.
// A task waiting on an fd, a Cond, another task or a cosync object is
// refused: what it waits for cannot travel with it.
//
// The snapshot format, version 3 (varints are encoding/binary's):
//
//	magic    "CGDS"
//	version  uvarint, 3
//	wait     one byte: 0 not started, 1 Gosched, 2 Yield, 3 Sleep
//	deadline (Sleep only) varint, the wall-clock deadline in Unix nanoseconds
//	frames   uvarint n+1, then n times: name (uvarint length + bytes) and
//	         fingerprint (8 bytes little-endian), outermost frame first
//	states   n times, innermost frame first: the resume point (varint),
//	         then the frame's fields as its EncodeState wrote them
//	contents the values of the regions the states reach (pointees, arrays,
//	         maps), in the order they were rooted (cogenrt/graph.go)
//	padding  (version 3) uvarint p, then p zero bytes: what raises the
//	         memory budget of Restore to what the values need (cogenrt/alloc.go)
//	checksum CRC-32C (Castagnoli) of everything before it, 4 bytes little-endian
//
// Within a frame's state each value has the wire form that the [cogenrt.Encoder]
// method writing it documents: integers as varints, a bool as one byte, a
// float as 8 bytes, a string as its length and its bytes, an array as its
// elements (byte-sized ones, byte, int8 or bool kinds, as one byte each);
// a pointer, a slice or a map as a mention of the region it designates and
// the path to it there (cogenrt/graph.go), the region's content following
// the states.
//
// The format version changes whenever the bytes of some value change
// while the fingerprints (below), which hash the code and the types but
// not the format, stay the same: every snapshot of an older version is
// then refused ("snapshot version 1, this program reads 2"), never
// misread. Version 3 carries values reached through pointers, slices and
// maps as regions (sharing and cycles kept) and ends with the padding;
// version 2 wrote slices and arrays of byte and int8 kinds one byte per
// element; version 1 wrote each element as a varint (a byte of 128 or
// more took two: a 1 KiB []byte took about 1.6 KB).
//
// A sleeping task records its absolute wall-clock deadline, not the time
// left: a task restored later sleeps only what remains of it (nothing if
// the deadline has passed), as a workflow's "wait until" expects. A wall
// clock that jumps between snapshot and restore shifts the wake-up by the
// jump.
//
// Versioning: a frame's fingerprint hashes its generated Step code and the
// names and types of its fields, so any change to the function's lowered
// form or to a field's type changes it, and [Restore] refuses bytes whose
// fingerprint differs from the running program's, naming the function
// ([ErrChangedCode]). Old snapshots of a changed function are therefore not
// loadable: to change a durable function while snapshots of it may exist,
// keep the old function under its name until they have drained (the
// fingerprint is per function, so the rest of the program may change
// freely), and start new work with the new one under a new name.

// ErrChangedCode is wrapped by the error of a [Restore] whose snapshot holds
// a frame whose function differs from the running program's.
var ErrChangedCode = errors.New("the function changed since the snapshot was taken")

// ErrNotCarriable is wrapped by the error of a [Snapshot] of a task that is
// not suspended at a point that can be carried.
var ErrNotCarriable = errors.New("task cannot be snapshotted")

// What a carriable task is suspended in (Task.carry).
const (
	carryNone    = cogenrt.WaitNone    // not started, or not suspended in a carriable operation
	carryGosched = cogenrt.WaitGosched // Gosched: queued behind the ready tasks
	carryYield   = cogenrt.WaitYield   // Yield: until Resume
	carrySleep   = cogenrt.WaitSleep   // Sleep: until its deadline
)

const (
	snapshotMagic   = "CGDS"
	snapshotVersion = 3 // see the format above for what changed
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Snapshot encodes a suspended task: its frames (all durable), where each
// stands, and what it waits for. Call it on t's loop goroutine, between
// steps. The task is left as it was: to move it, end it with Cancel (or
// simply drop the loop) once the bytes are stored.
func Snapshot(t *Task) ([]byte, error) {
	var carry uint8
	switch {
	case t.state == taskDone:
		return nil, fmt.Errorf("stackless: Snapshot: %w: it has finished", ErrNotCarriable)
	case t.state == taskRunning:
		return nil, fmt.Errorf("stackless: Snapshot: %w: it is running (called from its own step)", ErrNotCarriable)
	case t.canceled:
		return nil, fmt.Errorf("stackless: Snapshot: %w: it was canceled", ErrNotCarriable)
	case t.closing || t.w.Reason() == loop.LoopClosed:
		return nil, fmt.Errorf("stackless: Snapshot: %w: its loop closed", ErrNotCarriable)
	case t.state == taskNew:
		carry = carryNone
	case t.carry == carryNone:
		return nil, fmt.Errorf("stackless: Snapshot: %w: it waits on an fd, a Cond, another task or a cosync object, which cannot be carried (only Gosched, Yield and Sleep can)", ErrNotCarriable)
	case t.carry == carryYield && t.w.Queued():
		carry = carryGosched // resumed, not run yet: runnable, as after a Gosched
	default:
		carry = t.carry
	}
	frames := t.chain()
	e := &cogenrt.Encoder{}
	e.Raw([]byte(snapshotMagic)...)
	e.Uint(snapshotVersion)
	e.Raw(carry)
	if carry == carrySleep {
		e.Int(sleepDeadline(t).UnixNano())
	}
	e.Len(len(frames), false)
	dfs := make([]cogenrt.DurableFrame, len(frames))
	for i, f := range frames {
		df, ok := f.(cogenrt.DurableFrame)
		if !ok {
			where := ""
			if l, ok := f.(cogenrt.Locator); ok {
				where = " at " + l.Where()
			}
			return nil, fmt.Errorf("stackless: Snapshot: %w: frame %T%s is not durable (mark its function //co:stackless durable)", ErrNotCarriable, f, where)
		}
		dfs[i] = df
		name, fp := df.Durable()
		e.String(name)
		e.Raw(binary.LittleEndian.AppendUint64(nil, fp)...)
	}
	pcs := make([]int, len(frames))
	for i, f := range frames {
		pcs[i] = f.base().PC
	}
	if i, err := e.EncodeFrames(dfs, pcs); err != nil {
		if errors.Is(err, cogenrt.ErrTooLarge) {
			return nil, fmt.Errorf("stackless: Snapshot: %w: %w", ErrNotCarriable, err)
		}
		name, _ := dfs[i].Durable()
		return nil, fmt.Errorf("stackless: Snapshot: frame of %s: %w", name, err)
	}
	out := e.Output()
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli)), nil
}

// chain returns t's frames, outermost first.
func (t *Task) chain() []Frame {
	var fs []Frame
	if t.ext != nil {
		fs = append(fs, t.ext.callers...)
	}
	if t.top != nil {
		fs = append(fs, t.top)
	}
	return fs
}

// sleepDeadline returns the wall-clock time at which a sleeping t wakes:
// its timer's deadline, or now if the timer has fired already. The loop
// clock is read before the wall clock: a pause between the two reads (the
// thread preempted) then moves the recorded deadline later, never earlier,
// so a restored sleep may end late, as any timer may, but never early.
func sleepDeadline(t *Task) time.Time {
	loopNow := t.Loop().Now()
	now := time.Now()
	if d, ok := t.w.Deadline(); ok {
		return now.Add(d - loopNow)
	}
	return now
}

// Restore decodes a snapshot taken by [Snapshot] into a new task on l and
// schedules it as the snapshot left it: a task that had not started, or
// that was in Gosched, runs in a later iteration of the loop; one in Sleep
// wakes at its recorded deadline; one in Yield waits for [Task.Resume]
// (one resumed but not run again before Snapshot runs as after Gosched).
// The waiting call the task was in is made again on its first step, as
// after any wake-up, and returns as it would have: the sleep is over, the
// checkpoint passed.
//
// Restore checks every frame's fingerprint against the running program's
// and refuses the snapshot, naming the function, if one differs
// ([ErrChangedCode]) or is unknown. Malformed bytes give an error, never a
// panic or a task that resumes anywhere but where it was. Call it on l's
// goroutine (or before l runs).
func Restore(l *loop.Loop, data []byte) (*Task, error) {
	frames, carry, deadline, err := decodeSnapshot(data)
	if err != nil {
		return nil, fmt.Errorf("stackless: Restore: %w", err)
	}
	t := &Task{top: frames[len(frames)-1]}
	if len(frames) > 1 {
		t.extra().callers = frames[:len(frames)-1]
	}
	t.w.Init(l, t)
	switch carry {
	case carryNone:
		t.w.Yield()
		return t, nil
	case carryGosched:
		t.w.Yield()
	case carryYield:
		t.yielded = true
		t.w.Park(-1)
	case carrySleep:
		t.w.Sleep(time.Until(deadline))
	}
	t.carry = carry
	t.state = taskWaiting
	return t, nil
}

func decodeSnapshot(data []byte) ([]Frame, uint8, time.Time, error) {
	var deadline time.Time
	if len(data) < len(snapshotMagic)+4 || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return nil, 0, deadline, errors.New("not a snapshot (bad magic)")
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, 0, deadline, errors.New("corrupt snapshot (checksum mismatch)")
	}
	d := cogenrt.NewDecoder(body[len(snapshotMagic):])
	d.SetBudget(len(data))
	if v := d.Uint(); d.Err() == nil && v != snapshotVersion {
		return nil, 0, deadline, fmt.Errorf("snapshot version %d, this program reads %d", v, snapshotVersion)
	}
	var carry uint8
	if b := d.Raw(1); b != nil {
		carry = b[0]
	}
	switch {
	case d.Err() != nil:
	case carry == carrySleep:
		deadline = time.Unix(0, d.Int())
	case carry > carrySleep:
		d.Fail(fmt.Errorf("unknown wait kind %d", carry))
	}
	n := d.Len() // at least one byte per frame
	if d.Err() == nil && n < 1 {
		d.Fail(errors.New("no frames"))
	}
	if err := d.Err(); err != nil {
		return nil, 0, deadline, err
	}
	if err := d.NewFrames(n); err != nil {
		return nil, 0, deadline, err
	}
	frames := make([]Frame, n)
	dfs := make([]cogenrt.DurableFrame, n)
	for i := range dfs {
		name := d.String()
		b := d.Raw(8)
		if err := d.Err(); err != nil {
			return nil, 0, deadline, err
		}
		fp := binary.LittleEndian.Uint64(b)
		want, _, ok := cogenrt.LookupDurable(name)
		if !ok {
			return nil, 0, deadline, fmt.Errorf("frame of %s: no such durable function in this program", name)
		}
		if want != fp {
			return nil, 0, deadline, fmt.Errorf("frame of %s: %w (fingerprint %016x, this program's %016x)", name, ErrChangedCode, fp, want)
		}
		if dfs[i] = d.NewFrame(name); dfs[i] == nil {
			return nil, 0, deadline, d.Err()
		}
		f, ok := dfs[i].(Frame)
		if !ok {
			return nil, 0, deadline, fmt.Errorf("frame of %s: %T is not a stackless.Frame", name, dfs[i])
		}
		frames[i] = f
	}
	d.SetWait(carry)
	for i := n - 1; i >= 0; i-- {
		var callee any
		if i+1 < n {
			callee = dfs[i+1]
		}
		d.SetCallee(callee)
		d.SetInner(i == n-1)
		pc := d.IntN(32)
		if d.Err() == nil && carry == carryNone && (pc != 0 || i != n-1 || n != 1) {
			d.Fail(errors.New("a task that had not started has one frame at its entry"))
		}
		frames[i].base().PC = int(pc)
		d.SetFrame(i)
		if d.Err() == nil {
			dfs[i].DecodeState(d)
		}
		if d.Err() == nil && !d.CalleeHeld() {
			d.Fail(errors.New("a caller frame does not hold its callee"))
		}
		if err := d.Err(); err != nil {
			name, _ := dfs[i].Durable()
			return nil, 0, deadline, fmt.Errorf("frame of %s: %w", name, err)
		}
	}
	if i, err := d.Finish(); err != nil {
		if i < 0 {
			return nil, 0, deadline, err
		}
		name, _ := dfs[i].Durable()
		return nil, 0, deadline, fmt.Errorf("frame of %s: %w", name, err)
	}
	return frames, carry, deadline, nil
}

// Running durable tasks (package durable): an observer learns where a task
// can be checkpointed, holds it there while the checkpoint is stored, and
// discards a task it must not run further.

// An Observer watches a task ([Observe]). Its methods run on the task's
// loop goroutine, inside the loop's run of the task, and must not panic.
type Observer interface {
	// Suspended: the task has just suspended in Gosched, Yield or Sleep,
	// where [Snapshot] can carry it; it may be snapshotted, held, or
	// discarded here.
	Suspended(t *Task)
	// Finished: the task has returned or panicked ([Task.Panicked]), or
	// was ended by its loop's Close ([Ended]). It is not called for a
	// discarded task.
	Finished(t *Task)
}

// durableState is an observed task's, behind taskMore.
type durableState struct {
	observer Observer
	held     uint8         // what Unhold does: holdNone (not held), holdWake, holdSleep, holdYield
	deadline time.Duration // holdSleep: the sleep's deadline on the loop clock
}

const (
	holdNone  = iota
	holdWake  // its wait had ended (Gosched, a resumed Yield, an expired Sleep): wake it
	holdSleep // in a Sleep until deadline: sleep again until then
	holdYield // in a Yield not resumed: leave it waiting for Resume
)

// Observe makes o t's observer (nil: none). Call it on t's loop goroutine
// (or before the loop runs) while t is not running. A task that no
// observer watches pays one flag test per suspension.
func Observe(t *Task, o Observer) {
	if t.state == taskRunning {
		panic("stackless: Observe of a running task")
	}
	if o == nil {
		t.observed = false
		if m := t.moreIfAny(); m != nil {
			m.durable = nil
		}
		return
	}
	m := t.more()
	if m.durable == nil {
		m.durable = &durableState{}
	}
	m.durable.observer = o
	t.observed = true
}

// Hold keeps an observed task suspended in Gosched, Yield or Sleep from
// running until [Unhold], even if its wait ends meanwhile (a Gosched's
// turn comes, the sleep's deadline passes): a checkpoint's commit
// completes before the task goes on. A Yield that was not resumed is left
// waiting for [Task.Resume], which wakes it as before. Take the snapshot
// before Hold (a held sleeper's deadline is kept by Hold, not by its
// waiter). It panics unless t is observed and suspended in one of those
// three.
func Hold(t *Task) {
	if !t.observed || t.state != taskWaiting || t.carry == carryNone {
		panic("stackless: Hold of a task that is not observed and suspended in Gosched, Yield or Sleep")
	}
	d := t.ext.more.durable
	if d.held != holdNone {
		return
	}
	switch deadline, sleeping := t.w.Deadline(); {
	case t.carry == carrySleep && sleeping:
		d.held, d.deadline = holdSleep, deadline
	case t.carry == carryYield && t.w.Armed():
		d.held = holdYield
		return // parked already, without a deadline
	default:
		d.held = holdWake
	}
	t.w.Disarm()
	t.w.Park(-1)
}

// Unhold lets a task held by [Hold] go on: a Gosched, a resumed Yield or
// an expired Sleep continues in a later iteration of the loop, a Sleep at
// its deadline (at once if it has passed since). It does nothing if t is
// not held.
func Unhold(t *Task) {
	m := t.moreIfAny()
	if m == nil || m.durable == nil || m.durable.held == holdNone {
		return
	}
	d := m.durable
	held := d.held
	d.held = holdNone
	if t.state != taskWaiting || !t.w.Armed() {
		return // canceled, or woken by its loop's Close, meanwhile
	}
	switch held {
	case holdSleep:
		t.w.Disarm()
		t.w.Sleep(d.deadline - t.Loop().Now())
	case holdWake:
		t.w.Wake(loop.Ready)
	}
}

// Ended reports whether t was ended by its loop's Close (or by
// [Discard]) rather than by returning or panicking.
func Ended(t *Task) bool {
	m := t.moreIfAny()
	return t.state == taskDone && m != nil && m.ended
}

// Discard ends t without running it further: whatever it waits for is
// abandoned, its frames are dropped, its observer is not told, and tasks
// in Await on it return loop.ErrClosed. It is how a task whose state lives
// elsewhere (a checkpoint in a store) leaves a loop. A finished task is
// left as it is. Call it on t's loop goroutine, not from t's own step.
func Discard(t *Task) {
	switch t.state {
	case taskDone:
		return
	case taskRunning:
		panic("stackless: Discard of a running task (from its own step)")
	}
	t.observed = false
	if m := t.moreIfAny(); m != nil {
		m.durable = nil
	}
	t.waking, t.yielded = false, false
	if t.state == taskWaiting {
		t.w.Disarm()
	}
	t.end()
}

// SnapshotFrame encodes f as a task that has not started, without a loop:
// what [Restore] turns into a task that runs f from its entry. f must be
// a durable frame (its function marked //co:stackless durable) that no
// task runs.
func SnapshotFrame(f Frame) ([]byte, error) {
	if f == nil {
		panic("stackless: SnapshotFrame of a nil frame")
	}
	data, err := Snapshot(&Task{top: f})
	if err != nil {
		return nil, fmt.Errorf("stackless: SnapshotFrame: %w", err)
	}
	return data, nil
}

// DurableName returns the name under which f's durable function is
// registered (the one snapshots carry), or "" if f is not durable.
func DurableName(f Frame) string {
	if df, ok := f.(cogenrt.DurableFrame); ok {
		name, _ := df.Durable()
		return name
	}
	return ""
}

// SleepDeadline returns the wall-clock time at which t, suspended in
// Sleep, wakes (now if its timer has fired), and false if t is not
// suspended in Sleep. Call it before [Hold].
func SleepDeadline(t *Task) (time.Time, bool) {
	if t.state != taskWaiting || t.carry != carrySleep {
		return time.Time{}, false
	}
	return sleepDeadline(t), true
}
