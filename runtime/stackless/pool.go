package stackless

import "github.com/cogen-go/cogen/runtime/loop"

// A Pool spawns tasks of one frame type on one loop and reuses the blocks
// of released ones: [SpawnFrame] without the allocation once the pool is
// warm. It is a free list of task+frame blocks, like a per-thread object
// cache: a block released by [Pooled.Release] is the next one spawned.
//
// Create, run and release then allocate nothing (BenchmarkStacklessPool,
// testing.AllocsPerRun in the tests), where SpawnFrame allocates the block
// each time and the garbage collector frees it: the collection, not the
// allocation, was most of that cost (cobench's create rows show both).
//
// Each block carries a generation, bumped by Release, and a [Pooled]
// handle remembers the generation it was spawned with: a handle used after
// its task was released panics ("stackless: use of a released task"),
// even once the block runs another task. What the check cannot cover is a
// *Task or frame pointer kept from before the release: those must not be
// used after it, exactly as a frame given to Spawn must not be spawned
// twice.
//
// A Pool belongs to its loop's goroutine, like everything a loop runs; its
// zero value is not usable (see NewPool). Blocks are never returned to the
// heap: the pool holds as many as were ever live at once. A task that was
// awaited, polled or panicked (one with the rarely used part of its state)
// is not reused: its block goes to the garbage collector on Release.
type Pool[F any, P FramePtr[F]] struct {
	l    *loop.Loop
	free []*poolBlock[F]
}

// poolBlock is the unit a Pool reuses: a task and its first frame, allocated
// together as SpawnFrame does, and the generation of the task it runs.
type poolBlock[F any] struct {
	t   Task
	gen uint64 // odd: spawned; even: released (free)
	f   F
}

// Pooled is the handle of a task spawned by a [Pool]: a block and the
// generation it was spawned with. It is a value; copies are the same
// handle.
type Pooled[F any, P FramePtr[F]] struct {
	b   *poolBlock[F]
	gen uint64
	p   *Pool[F, P]
}

// NewPool returns an empty pool of tasks running frames of type F on l.
func NewPool[F any, P FramePtr[F]](l *loop.Loop) *Pool[F, P] {
	if l == nil {
		panic("stackless: NewPool with a nil loop")
	}
	return &Pool[F, P]{l: l}
}

// Spawn is [SpawnFrame] of a copy of frame on a block from the pool (a new
// one if none is free): the task runs frame from its first step, in a later
// iteration of the loop.
func (p *Pool[F, P]) Spawn(frame F) Pooled[F, P] {
	var b *poolBlock[F]
	if n := len(p.free); n > 0 {
		b = p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
	} else {
		b = new(poolBlock[F])
	}
	b.gen++ // odd: live
	b.f = frame
	b.t.top = P(&b.f)
	b.t.w.Init(p.l, &b.t) // keeps the waiter's timer entry from the block's last task
	b.t.w.Yield()
	return Pooled[F, P]{b: b, gen: b.gen, p: p}
}

// Free reports how many released blocks the pool holds for reuse.
func (p *Pool[F, P]) Free() int { return len(p.free) }

// live returns h's block, panicking if h is the zero handle or its task has
// been released.
func (h Pooled[F, P]) live() *poolBlock[F] {
	if h.b == nil {
		panic("stackless: use of a zero Pooled handle")
	}
	if h.b.gen != h.gen {
		panic("stackless: use of a released task")
	}
	return h.b
}

// Task returns the task. It must not be used once the handle is released.
func (h Pooled[F, P]) Task() *Task { return &h.live().t }

// Frame returns the task's first frame, where its results are once it is
// done. It must not be used once the handle is released.
func (h Pooled[F, P]) Frame() P { return P(&h.live().f) }

// Done reports whether the task has finished (Task.Done).
func (h Pooled[F, P]) Done() bool { return h.live().t.Done() }

// Release gives the task's block back to its pool for a later Spawn. The
// task must have finished; its frame is cleared, so read the results
// before. Every later use of this handle, or of a copy, panics.
func (h Pooled[F, P]) Release() {
	b := h.live()
	t := &b.t
	if t.state != taskDone {
		panic("stackless: Release of a task that has not finished")
	}
	if t.w.Armed() || t.w.Queued() {
		panic("stackless: internal error: a finished task's waiter is still armed")
	}
	b.gen++ // even: released; stale handles now fail live
	var zero F
	b.f = zero
	if e := t.ext; e != nil && e.more != nil {
		// The task was awaited, polled, panicked or ended by Close: a task
		// in Await on it holds its *Task and reads Done when it runs next,
		// which may be after this Release. Such a block is left to the
		// garbage collector, so that the awaiter sees this task, finished,
		// and never the block's next one.
		return
	}
	// The waiter (and its timer entry) and the callers' slice stay for the
	// next task, which Spawn binds to the waiter again; the rest starts
	// over. cosync records of an operation this task abandoned may still
	// name the waiter and the slot: they are dead by identity (the slot
	// never holds them again, see cosync's record.alive).
	// Every other field is reset by assigning a fresh Task, so that a field
	// added to Task (or taskExt) later starts zero too; the waiter is
	// detached (Kill), so writing its own bytes back is the identity.
	e := t.ext
	if e != nil {
		clear(e.callers[:cap(e.callers)])
		*e = taskExt{callers: e.callers[:0]}
	}
	*t = Task{w: t.w, ext: e}
	h.p.free = append(h.p.free, b)
}
