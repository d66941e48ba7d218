package stackless

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"reflect"
	"sync"
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
// The snapshot format, version 2 (varints are encoding/binary's):
//
//	magic    "CGDS"
//	version  uvarint, 2
//	wait     one byte: 0 not started, 1 Gosched, 2 Yield, 3 Sleep
//	deadline (Sleep only) varint, the wall-clock deadline in Unix nanoseconds
//	frames   uvarint n+1, then n times: name (uvarint length + bytes) and
//	         fingerprint (8 bytes little-endian), outermost frame first
//	states   n times, innermost frame first: the resume point (varint),
//	         then the frame's fields as its EncodeState wrote them
//	checksum CRC-32C (Castagnoli) of everything before it, 4 bytes little-endian
//
// Within a frame's state each value has the wire form that the [Encoder]
// method writing it documents: integers as varints, a bool as one byte, a
// float as 8 bytes, a string as its length and its bytes; a slice or a map
// as its length (0 for nil, n+1 otherwise) and its elements (a map's as
// key and value pairs), an array as its elements; a slice of byte-sized
// elements (byte, int8 or bool kinds, named or not) as that length and one
// byte per element, an array of them as the bytes alone ([Encoder.Bytes],
// [EncodeByteElems], [EncodeBoolElems]); a pointer as its id in the
// snapshot's pointer table, followed by the pointee the first time.
//
// The format version changes whenever the bytes of some value change
// while the fingerprints (below), which hash the code and the types but
// not the format, stay the same: every snapshot of an older version is
// then refused ("snapshot version 1, this program reads 2"), never
// misread. Version 2 writes slices and arrays of byte and int8 kinds one
// byte per element; version 1 wrote each element as a varint (a byte of
// 128 or more took two: a 1 KiB []byte took about 1.6 KB).
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

// A DurableFrame is a frame that cogen generated for a //co:stackless
// durable function: it can write its state into a snapshot and read it back.
type DurableFrame interface {
	Frame
	// Durable returns the frame type's registered name (the function's
	// package path and name) and its layout fingerprint.
	Durable() (name string, fingerprint uint64)
	// EncodeState writes the frame's fields (not its PC).
	EncodeState(e *Encoder)
	// DecodeState reads the fields EncodeState wrote and checks the PC,
	// which is set already, is one of the frame's resume points.
	DecodeState(d *Decoder)
}

// ErrChangedCode is wrapped by the error of a [Restore] whose snapshot holds
// a frame whose function differs from the running program's.
var ErrChangedCode = errors.New("the function changed since the snapshot was taken")

// ErrNotCarriable is wrapped by the error of a [Snapshot] of a task that is
// not suspended at a point that can be carried.
var ErrNotCarriable = errors.New("task cannot be snapshotted")

type durableType struct {
	fingerprint uint64
	newFrame    func() DurableFrame
	size        uint64 // of the frame struct newFrame allocates
}

var registry struct {
	sync.RWMutex
	types map[string]durableType
}

// RegisterDurable records a durable frame type for [Restore]. Generated
// code calls it from an init function; registering one name twice with two
// fingerprints panics (two functions claim one name).
func RegisterDurable(name string, fingerprint uint64, newFrame func() DurableFrame) {
	registry.Lock()
	defer registry.Unlock()
	if registry.types == nil {
		registry.types = map[string]durableType{}
	}
	if old, ok := registry.types[name]; ok && old.fingerprint != fingerprint {
		panic("stackless: RegisterDurable of " + name + " twice with different fingerprints")
	}
	registry.types[name] = durableType{fingerprint, newFrame, frameSize(newFrame())}
}

// frameSize is the size of the struct f points to.
func frameSize(f Frame) uint64 {
	if t := reflect.TypeOf(f); t.Kind() == reflect.Pointer {
		return uint64(t.Elem().Size())
	}
	return uint64(reflect.TypeOf(f).Size())
}

// frameCost is the charge of restoring a frame of the given size: its
// struct, its entries in Restore's two frame slices, its region.
func frameCost(size uint64) uint64 { return cost(size) + 32 + regionCost }

func lookupDurable(name string) (durableType, bool) {
	registry.RLock()
	defer registry.RUnlock()
	dt, ok := registry.types[name]
	return dt, ok
}

// What a carriable task is suspended in (Task.carry).
const (
	carryNone    uint8 = iota // not started, or not suspended in a carriable operation
	carryGosched              // Gosched: queued behind the ready tasks
	carryYield                // Yield: until Resume
	carrySleep                // Sleep: until its deadline
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
	e := &Encoder{}
	e.buf = append(e.buf, snapshotMagic...)
	e.Uint(snapshotVersion)
	e.buf = append(e.buf, carry)
	if carry == carrySleep {
		e.Int(sleepDeadline(t).UnixNano())
	}
	e.Len(len(frames), false)
	e.charge(mulCap(uint64(len(frames)), 32))
	dfs := make([]DurableFrame, len(frames))
	for i, f := range frames {
		df, ok := f.(DurableFrame)
		if !ok {
			where := ""
			if l, ok := f.(Locator); ok {
				where = " at " + l.Where()
			}
			return nil, fmt.Errorf("stackless: Snapshot: %w: frame %T%s is not durable (mark its function //co:stackless durable)", ErrNotCarriable, f, where)
		}
		dfs[i] = df
		e.charge(frameCost(frameSize(df)))
		name, fp := df.Durable()
		e.String(name)
		e.buf = binary.LittleEndian.AppendUint64(e.buf, fp)
	}
	e.beginFrames(dfs)
	mark, spent := len(e.buf), e.spent
	if err := e.states(dfs); err != nil {
		return nil, err
	}
	if e.overlapping() { // pointers into other values: walk again, by region
		if err := e.merge(); err != nil {
			return nil, fmt.Errorf("stackless: Snapshot: %w", err)
		}
		e.buf = e.buf[:mark]
		e.ptrs = nil
		e.spent = spent
		e.resetIDs()
		if err := e.states(dfs); err != nil {
			return nil, err
		}
	}
	if err := e.pad(); err != nil {
		return nil, err
	}
	return binary.LittleEndian.AppendUint32(e.buf, crc32.Checksum(e.buf, castagnoli)), nil
}

// states writes the frames' states, innermost first, then the contents of
// the regions they reach.
func (e *Encoder) states(dfs []DurableFrame) error {
	for i := len(dfs) - 1; i >= 0; i-- {
		e.callee = nil
		if i+1 < len(dfs) {
			e.callee = dfs[i+1]
		}
		e.frame = i
		e.Int(int64(dfs[i].base().PC))
		dfs[i].EncodeState(e)
		if e.err != nil {
			name, _ := dfs[i].Durable()
			return fmt.Errorf("stackless: Snapshot: frame of %s: %w", name, e.err)
		}
	}
	e.drain()
	if e.err != nil {
		name, _ := dfs[e.frame].Durable()
		return fmt.Errorf("stackless: Snapshot: frame of %s: %w", name, e.err)
	}
	return nil
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
	d := &Decoder{buf: body[len(snapshotMagic):], budget: budgetFor(len(data))}
	if v := d.Uint(); d.err == nil && v != snapshotVersion {
		return nil, 0, deadline, fmt.Errorf("snapshot version %d, this program reads %d", v, snapshotVersion)
	}
	var carry uint8
	if d.err == nil {
		if len(d.buf) == 0 {
			d.Fail(errTruncated)
		} else {
			carry, d.buf = d.buf[0], d.buf[1:]
		}
	}
	switch {
	case d.err != nil:
	case carry == carrySleep:
		deadline = time.Unix(0, d.Int())
	case carry > carrySleep:
		d.Fail(fmt.Errorf("unknown wait kind %d", carry))
	}
	n := d.Len() // at least one byte per frame
	if d.err == nil && n < 1 {
		d.Fail(errors.New("no frames"))
	}
	if d.err != nil {
		return nil, 0, deadline, d.err
	}
	if n > len(d.buf)/9 { // a name's length and a fingerprint at least
		return nil, 0, deadline, fmt.Errorf("%d frames in %d bytes", n, len(d.buf))
	}
	if !d.charge(mulCap(uint64(n), 32)) {
		return nil, 0, deadline, d.err
	}
	frames := make([]Frame, n)
	dfs := make([]DurableFrame, n)
	for i := range dfs {
		name := d.String()
		if d.err == nil && len(d.buf) < 8 {
			d.Fail(errTruncated)
		}
		if d.err != nil {
			return nil, 0, deadline, d.err
		}
		fp := binary.LittleEndian.Uint64(d.buf)
		d.buf = d.buf[8:]
		dt, ok := lookupDurable(name)
		if !ok {
			return nil, 0, deadline, fmt.Errorf("frame of %s: no such durable function in this program", name)
		}
		if dt.fingerprint != fp {
			return nil, 0, deadline, fmt.Errorf("frame of %s: %w (fingerprint %016x, this program's %016x)", name, ErrChangedCode, fp, dt.fingerprint)
		}
		if !d.charge(frameCost(dt.size)) {
			return nil, 0, deadline, d.err
		}
		dfs[i] = dt.newFrame()
		frames[i] = dfs[i]
		d.regions = append(d.regions, &dregion{v: reflect.ValueOf(dfs[i]).Elem(), ptr: dfs[i]})
	}
	d.carry = carry
	for i := n - 1; i >= 0; i-- {
		d.callee = nil
		if i+1 < n {
			d.callee = dfs[i+1]
		}
		d.inner = i == n-1
		pc := d.IntN(32)
		if d.err == nil && carry == carryNone && (pc != 0 || i != n-1 || n != 1) {
			d.Fail(errors.New("a task that had not started has one frame at its entry"))
		}
		dfs[i].base().PC = int(pc)
		d.frame = i
		if d.err == nil {
			dfs[i].DecodeState(d)
		}
		if d.err == nil && d.callee != nil {
			d.Fail(errors.New("a caller frame does not hold its callee"))
		}
		if d.err != nil {
			name, _ := dfs[i].Durable()
			return nil, 0, deadline, fmt.Errorf("frame of %s: %w", name, d.err)
		}
	}
	if d.finish(); d.err != nil {
		name, _ := dfs[d.frame].Durable()
		return nil, 0, deadline, fmt.Errorf("frame of %s: %w", name, d.err)
	}
	// The padding (durablealloc.go): its length, then that many zeros.
	if pad := d.Uint(); d.err != nil || pad != uint64(len(d.buf)) {
		return nil, 0, deadline, fmt.Errorf("%d bytes after the last value, not the padding", len(d.buf))
	}
	for _, b := range d.buf {
		if b != 0 {
			return nil, 0, deadline, errors.New("a padding byte is not zero")
		}
	}
	return frames, carry, deadline, nil
}
