package durable

import (
	"container/heap"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// The directory store: the embedded default, for one process.
//
// Layout of the directory (version 1, recorded in its VERSION file):
//
//	VERSION           "cogen durable dir 1\n"
//	LOCK              locked exclusively by the process that has it open
//	                  (flock; LockFileEx on Windows), holding its process ID
//	tasks/t-<id>      one file per task whose ID is made of [A-Za-z0-9._-]
//	                  (up to 100 bytes, not starting with '.'), or
//	tasks/h-<hex>     with the first 16 bytes of the ID's SHA-256 otherwise
//	signals/<seq>.sig one file per queued signal, seq in 20 decimal digits
//	tmp/              files being written (cleared by Open)
//
// A task file holds the task's record and its snapshot, a signal file its
// task's ID, name and value; each ends with a CRC-32C of its content. A
// file is written whole to tmp/, fsynced, renamed into place, and its
// directory fsynced (on Unix; Windows has no directory fsync): a reader, or a process restarted after a crash or a
// power loss, finds the old content or the new one, never a part. A
// commit that consumes signals records their numbers in the task file
// before it removes their files, and Open removes the files that the last
// commit of their task consumed: a crash between the two leaves nothing
// to receive twice.
//
// Open reads every file and keeps an index of the records in memory (a
// few hundred bytes per task, not the snapshots, which Claim reads from
// the files); leases live in that index only, since a single process holds
// the directory. A record whose file is corrupt (a checksum mismatch,
// which atomic writes leave only to a failing disk or another writer)
// fails Open with an error naming the file.
//
// Every call does its file I/O and its fsyncs on an offload goroutine of
// the calling coroutine's env ([stackful.Co.Offload]), so a store call
// never blocks the loop, and calls of several coroutines proceed in
// parallel, each task's in the order they are made.

const (
	dirVersion    = "cogen durable dir 1\n"
	taskMagic     = "CGDT"
	signalMagic   = "CGDG"
	taskFileVer   = 1
	maxIDLen      = 200
	plainIDMaxLen = 100
)

// DirStore is a [Store] in a directory; see [OpenDir].
type DirStore struct {
	dir string
	// mu guards the fields below; it is held only for in-memory work,
	// never across I/O, and only by offload goroutines or by calls that do
	// no I/O; a commit waits on idle (in its offload goroutine) for a
	// claim of the same task to finish reading it.
	mu       sync.Mutex
	idle     sync.Cond // on mu: broadcast when a task stops being busy
	lock     *os.File  // the flock'ed LOCK file; nil once closed
	tasks    map[ID]*dirTask
	due      dueHeap // the tasks that are or will be claimable, by claimable-at time
	nextSig  int64
	nextTemp uint64
}

// dirTask is a task's record in the index.
type dirTask struct {
	id       ID
	name     string
	state    State
	seq      int64
	due      time.Time // Running, Sleeping; Waiting once a signal makes it due
	signal   string
	result   []byte
	err      string
	consumed []int64 // of the last commit (their files may remain until removed)
	signals  []Signal
	owner    string
	lease    time.Time
	busy     bool // a Create or Commit of it is writing its file
	creating bool // the Create has not finished, or a Delete has begun: it does not exist
	idx      int  // in due, -1 if not there
}

// OpenDir opens (creating it if needed) the store in dir and locks it:
// one process at a time holds a directory, and a second OpenDir of it,
// in this process or another, fails until the first is closed.
func OpenDir(dir string) (*DirStore, error) {
	for _, sub := range []string{"", "tasks", "signals", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, fmt.Errorf("durable: OpenDir: %w", err)
		}
	}
	lock, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("durable: OpenDir: %w", err)
	}
	if busy, err := lockFile(lock); err != nil {
		lock.Close()
		if busy {
			return nil, fmt.Errorf("durable: OpenDir %s: the directory is in use by another store (process %s)", dir, lockHolder(dir))
		}
		return nil, fmt.Errorf("durable: OpenDir %s: lock: %w", dir, err)
	}
	s := &DirStore{dir: dir, lock: lock, tasks: map[ID]*dirTask{}, nextSig: 1}
	s.idle.L = &s.mu
	if err := s.load(); err != nil {
		lock.Close()
		return nil, fmt.Errorf("durable: OpenDir %s: %w", dir, err)
	}
	lock.Truncate(0)
	lock.WriteAt([]byte(fmt.Sprint(os.Getpid())), 0)
	return s, nil
}

func lockHolder(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "LOCK"))
	if len(b) == 0 {
		return "unknown"
	}
	return string(b)
}

// load checks the layout version, clears tmp/ and reads the index.
func (s *DirStore) load() error {
	vpath := filepath.Join(s.dir, "VERSION")
	switch v, err := os.ReadFile(vpath); {
	case errors.Is(err, os.ErrNotExist):
		if err := s.writeFile(vpath, []byte(dirVersion)); err != nil {
			return err
		}
	case err != nil:
		return err
	case string(v) != dirVersion:
		return fmt.Errorf("layout %q, this program reads %q", strings.TrimSpace(string(v)), strings.TrimSpace(dirVersion))
	}
	tmps, err := os.ReadDir(filepath.Join(s.dir, "tmp"))
	if err != nil {
		return err
	}
	for _, e := range tmps {
		if err := os.Remove(filepath.Join(s.dir, "tmp", e.Name())); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(filepath.Join(s.dir, "tasks"))
	if err != nil {
		return err
	}
	for _, e := range ents {
		path := filepath.Join(s.dir, "tasks", e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		t, _, err := decodeTask(b)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if taskFile(t.id) != e.Name() {
			return fmt.Errorf("%s: holds task %q, whose file is %s", path, t.id, taskFile(t.id))
		}
		t.idx = -1
		s.tasks[t.id] = t
	}
	sigs, err := os.ReadDir(filepath.Join(s.dir, "signals"))
	if err != nil {
		return err
	}
	for _, e := range sigs { // in name order, so in sequence order
		path := filepath.Join(s.dir, "signals", e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		id, sig, err := decodeSignal(b)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		s.nextSig = max(s.nextSig, sig.Seq+1)
		t := s.tasks[id]
		if t == nil || t.state == Done || t.state == Failed || containsSeq(t.consumed, sig.Seq) {
			// Consumed by a commit that crashed before removing it, or
			// queued for a task that has ended: nobody will receive it.
			if err := os.Remove(path); err != nil {
				return err
			}
			continue
		}
		t.signals = append(t.signals, sig)
	}
	for _, t := range s.tasks {
		if t.state == Waiting && t.due.IsZero() && t.hasSignal(t.signal, nil) {
			t.due = time.Now()
		}
		s.fix(t)
	}
	return nil
}

func containsSeq(seqs []int64, seq int64) bool {
	for _, q := range seqs {
		if q == seq {
			return true
		}
	}
	return false
}

// hasSignal reports whether t has a queued signal named name that is not
// among consumed.
func (t *dirTask) hasSignal(name string, consumed []int64) bool {
	for _, sg := range t.signals {
		if sg.Name == name && !containsSeq(consumed, sg.Seq) {
			return true
		}
	}
	return false
}

// claimableAt returns when t can be claimed, and false if it cannot be
// until something else changes.
func (t *dirTask) claimableAt() (time.Time, bool) {
	if t.creating || t.busy || t.state.Terminal() || t.due.IsZero() {
		return time.Time{}, false
	}
	if t.owner != "" && t.lease.After(t.due) {
		return t.lease, true
	}
	return t.due, true
}

// fix puts t where it belongs in the due heap.
func (s *DirStore) fix(t *dirTask) {
	at, ok := t.claimableAt()
	switch {
	case !ok && t.idx >= 0:
		heap.Remove(&s.due, t.idx)
	case !ok:
	case t.idx >= 0:
		s.due.at[t.idx] = at
		heap.Fix(&s.due, t.idx)
	default:
		heap.Push(&s.due, dueItem{t, at})
	}
}

func validID(id ID) error {
	if id == "" || len(id) > maxIDLen {
		return fmt.Errorf("durable: task ID of %d bytes (1 to %d)", len(id), maxIDLen)
	}
	return nil
}

// taskFile returns the name of id's file in tasks/.
func taskFile(id ID) string {
	if len(id) <= plainIDMaxLen && id[0] != '.' && strings.Trim(string(id), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == "" {
		return "t-" + string(id)
	}
	h := sha256.Sum256([]byte(id))
	return "h-" + hex.EncodeToString(h[:16])
}

// Create implements [Store.Create].
func (s *DirStore) Create(co *stackful.Co, id ID, name string, snapshot []byte) error {
	if err := validID(id); err != nil {
		return err
	}
	var err error
	co.Offload(func() { err = s.create(id, name, snapshot) })
	return err
}

func (s *DirStore) create(id ID, name string, snapshot []byte) error {
	s.mu.Lock()
	if s.lock == nil {
		s.mu.Unlock()
		return ErrClosed
	}
	if _, ok := s.tasks[id]; ok {
		s.mu.Unlock()
		return fmt.Errorf("durable: Create %q: %w", id, ErrExists)
	}
	t := &dirTask{id: id, name: name, state: Running, due: time.Now(), creating: true, busy: true, idx: -1}
	s.tasks[id] = t
	s.mu.Unlock()
	err := s.writeFile(s.taskPath(id), encodeTask(t, snapshot))
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		delete(s.tasks, id)
		return fmt.Errorf("durable: Create %q: %w", id, err)
	}
	t.creating, t.busy = false, false
	s.idle.Broadcast()
	s.fix(t)
	return nil
}

func (s *DirStore) taskPath(id ID) string { return filepath.Join(s.dir, "tasks", taskFile(id)) }

func (s *DirStore) signalPath(seq int64) string {
	return filepath.Join(s.dir, "signals", fmt.Sprintf("%020d.sig", seq))
}

// Claim implements [Store.Claim].
func (s *DirStore) Claim(co *stackful.Co, worker string, lease time.Duration, max int) ([]Claimed, error) {
	if worker == "" {
		panic("durable: Claim with an empty worker name")
	}
	var out []Claimed
	var err error
	co.Offload(func() { out, err = s.claim(worker, lease, max) })
	return out, err
}

func (s *DirStore) claim(worker string, lease time.Duration, max int) ([]Claimed, error) {
	s.mu.Lock()
	if s.lock == nil {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	now := time.Now()
	var ts []*dirTask
	var out []Claimed
	for len(ts) < max && len(s.due.ts) > 0 && !s.due.at[0].After(now) {
		t := s.due.ts[0]
		t.owner, t.lease = worker, now.Add(lease)
		t.busy = true // reading its snapshot
		s.fix(t)
		ts = append(ts, t)
		out = append(out, Claimed{ID: t.id, Name: t.name, Seq: t.seq, Signals: append([]Signal(nil), t.signals...)})
	}
	s.mu.Unlock()
	var err error
	for i, t := range ts {
		var b []byte
		if b, err = os.ReadFile(s.taskPath(t.id)); err == nil {
			var snap []byte
			if _, snap, err = decodeTask(b); err == nil {
				out[i].Snapshot = snap
				continue
			}
		}
		err = fmt.Errorf("durable: Claim: task %q: %w", t.id, err)
		break
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idle.Broadcast()
	for _, t := range ts {
		t.busy = false
		if err != nil {
			t.owner = ""
		}
		s.fix(t)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Commit implements [Store.Commit].
func (s *DirStore) Commit(co *stackful.Co, worker string, lease time.Duration, c *Commit) error {
	if c.State == 0 || c.State > Parked {
		panic(fmt.Sprintf("durable: Commit of task %q with state %d", c.ID, c.State))
	}
	var err error
	co.Offload(func() { err = s.commit(worker, lease, c) })
	return err
}

func (s *DirStore) commit(worker string, lease time.Duration, c *Commit) error {
	s.mu.Lock()
	if s.lock == nil {
		s.mu.Unlock()
		return ErrClosed
	}
	t := s.tasks[c.ID]
	switch {
	case t == nil || t.creating:
		s.mu.Unlock()
		return fmt.Errorf("durable: Commit %q: %w", c.ID, ErrLeaseLost)
	case t.owner != worker || t.seq != c.Seq || t.state.Terminal():
		owner, seq := t.owner, t.seq // read under mu: the error is made after Unlock
		s.mu.Unlock()
		return fmt.Errorf("durable: Commit %q at %d by %s: %w (held by %q at %d)", c.ID, c.Seq, worker, ErrLeaseLost, owner, seq)
	}
	for t.busy {
		// A Claim reading its snapshot (the lease expired and this
		// worker claimed it again), or a commit of it that the caller
		// did not wait for: wait for it, then check the lease again.
		s.idle.Wait()
		if t.owner != worker || t.seq != c.Seq || t.state.Terminal() {
			owner, seq := t.owner, t.seq
			s.mu.Unlock()
			return fmt.Errorf("durable: Commit %q at %d by %s: %w (held by %q at %d)", c.ID, c.Seq, worker, ErrLeaseLost, owner, seq)
		}
	}
	t.busy = true
	nt := *t // the record as committed
	nt.seq = c.Seq + 1
	nt.state, nt.signal, nt.result, nt.err = c.State, "", nil, ""
	nt.due = time.Time{}
	switch c.State {
	case Running, Sleeping:
		nt.due = c.Due
		if nt.due.IsZero() {
			nt.due = time.Now()
		}
	case Waiting:
		nt.signal = c.Signal
	case Done:
		nt.result = c.Result
	case Failed, Parked:
		nt.err = c.Error
	}
	nt.consumed = c.Consumed
	s.mu.Unlock()

	snap := c.Snapshot
	var err error
	if snap == nil && c.State != Done {
		var b []byte
		if b, err = os.ReadFile(s.taskPath(c.ID)); err == nil {
			_, snap, err = decodeTask(b)
		}
	}
	if err == nil {
		err = s.writeFile(s.taskPath(c.ID), encodeTask(&nt, snap))
	}
	if err == nil {
		for _, q := range c.Consumed {
			if err = os.Remove(s.signalPath(q)); errors.Is(err, os.ErrNotExist) {
				err = nil
			}
			if err != nil {
				break
			}
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	t.busy = false
	s.idle.Broadcast()
	if err != nil {
		// The file holds the old record or the new one; the index keeps
		// the old one, and the worker, told the commit failed, commits
		// again or drops the task (its lease then expires).
		s.fix(t)
		return fmt.Errorf("durable: Commit %q: %w", c.ID, err)
	}
	t.seq, t.state, t.due, t.signal, t.result, t.err, t.consumed = nt.seq, nt.state, nt.due, nt.signal, nt.result, nt.err, nt.consumed
	if len(c.Consumed) > 0 {
		kept := t.signals[:0]
		for _, sg := range t.signals {
			if !containsSeq(c.Consumed, sg.Seq) {
				kept = append(kept, sg)
			}
		}
		clear(t.signals[len(kept):])
		t.signals = kept
	}
	if t.state == Waiting && t.hasSignal(t.signal, nil) {
		t.due = time.Now()
	}
	if c.Release || t.state.Terminal() {
		t.owner, t.lease = "", time.Time{}
	} else {
		t.lease = time.Now().Add(lease)
	}
	if t.state.Terminal() {
		t.signals = nil
	}
	s.fix(t)
	return nil
}

// Renew implements [Store.Renew]; it does no I/O.
func (s *DirStore) Renew(co *stackful.Co, worker string, lease time.Duration, ids []ID) ([]ID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return nil, ErrClosed
	}
	until := time.Now().Add(lease)
	var lost []ID
	for _, id := range ids {
		t := s.tasks[id]
		if t == nil || t.creating || t.owner != worker {
			lost = append(lost, id)
			continue
		}
		t.lease = until
		s.fix(t)
	}
	return lost, nil
}

// Release implements [Store.Release]; it does no I/O.
func (s *DirStore) Release(co *stackful.Co, worker string, ids []ID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return ErrClosed
	}
	for _, id := range ids {
		if t := s.tasks[id]; t != nil && t.owner == worker {
			t.owner, t.lease = "", time.Time{}
			s.fix(t)
		}
	}
	return nil
}

// Signal implements [Store.Signal].
func (s *DirStore) Signal(co *stackful.Co, id ID, name string, value []byte) (int64, error) {
	var seq int64
	var err error
	co.Offload(func() { seq, err = s.signal(id, name, value) })
	return seq, err
}

func (s *DirStore) signal(id ID, name string, value []byte) (int64, error) {
	s.mu.Lock()
	if s.lock == nil {
		s.mu.Unlock()
		return 0, ErrClosed
	}
	t := s.tasks[id]
	switch {
	case t == nil || t.creating:
		s.mu.Unlock()
		return 0, fmt.Errorf("durable: Signal %q: %w", id, ErrNotFound)
	case t.state == Done || t.state == Failed:
		state := t.state // read under mu
		s.mu.Unlock()
		return 0, fmt.Errorf("durable: Signal %q: %w (%s)", id, ErrFinished, state)
	}
	seq := s.nextSig
	s.nextSig++
	s.mu.Unlock()
	sig := Signal{Seq: seq, Name: name, Value: append([]byte(nil), value...)}
	if err := s.writeFile(s.signalPath(seq), encodeSignal(id, sig)); err != nil {
		return 0, fmt.Errorf("durable: Signal %q: %w", id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.state == Done || t.state == Failed {
		// Ended while the file was written: nobody will receive it.
		os.Remove(s.signalPath(seq))
		return 0, fmt.Errorf("durable: Signal %q: %w (%s)", id, ErrFinished, t.state)
	}
	t.signals = append(t.signals, sig)
	if t.state == Waiting && t.signal == name && t.due.IsZero() && !t.busy {
		t.due = time.Now()
		s.fix(t)
	}
	return seq, nil
}

// Get implements [Store.Get]; it does no I/O.
func (s *DirStore) Get(co *stackful.Co, id ID) (Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return Info{}, ErrClosed
	}
	t := s.tasks[id]
	if t == nil || t.creating {
		return Info{}, fmt.Errorf("durable: Get %q: %w", id, ErrNotFound)
	}
	return t.info(), nil
}

func (t *dirTask) info() Info {
	return Info{
		ID: t.id, Name: t.name, State: t.state, Seq: t.seq, Due: t.due, Signal: t.signal,
		Result: t.result, Error: t.err, Owner: t.owner, Lease: t.lease, Pending: len(t.signals),
	}
}

// Delete implements [Store.Delete]: it removes the task's signal files,
// then its file (a crash between the two leaves the ended task with
// fewer signals), and fsyncs the directories.
func (s *DirStore) Delete(co *stackful.Co, id ID) error {
	var err error
	co.Offload(func() { err = s.delete(id) })
	return err
}

func (s *DirStore) delete(id ID) error {
	s.mu.Lock()
	if s.lock == nil {
		s.mu.Unlock()
		return ErrClosed
	}
	t := s.tasks[id]
	if t == nil || t.creating {
		s.mu.Unlock()
		return fmt.Errorf("durable: Delete %q: %w", id, ErrNotFound)
	}
	if !t.state.Terminal() || t.busy {
		state := t.state // read under mu
		s.mu.Unlock()
		return fmt.Errorf("durable: Delete %q: %w (%s)", id, ErrNotEnded, state)
	}
	// Gone for every other call from here; Create finds it still there
	// (ErrExists) until its file is removed.
	t.creating, t.busy = true, true
	var files []string
	for _, sig := range t.signals {
		files = append(files, s.signalPath(sig.Seq))
	}
	for _, seq := range t.consumed {
		files = append(files, s.signalPath(seq))
	}
	s.mu.Unlock()
	err := removeFiles(files)
	if err == nil && len(files) > 0 {
		err = syncDir(filepath.Join(s.dir, "signals"))
	}
	if err == nil {
		err = removeFiles([]string{s.taskPath(id)})
	}
	if err == nil {
		err = syncDir(filepath.Join(s.dir, "tasks"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		t.creating, t.busy = false, false
		s.idle.Broadcast()
		return fmt.Errorf("durable: Delete %q: %w", id, err)
	}
	if t.idx >= 0 {
		heap.Remove(&s.due, t.idx)
	}
	delete(s.tasks, id)
	s.idle.Broadcast()
	return nil
}

func removeFiles(paths []string) error {
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// List implements [Store.List]; it does no I/O. It sorts the IDs of the
// tasks in state on every call.
func (s *DirStore) List(co *stackful.Co, state State, after ID, maxN int) ([]Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return nil, ErrClosed
	}
	var ids []ID
	for id, t := range s.tasks {
		if !t.creating && id > after && (state == 0 || t.state == state) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ids = ids[:min(len(ids), max(maxN, 0))]
	out := make([]Info, len(ids))
	for i, id := range ids {
		out[i] = s.tasks[id].info()
	}
	return out, nil
}

// Close implements [Store.Close]: it unlocks the directory. Calls in
// progress finish; later ones fail with ErrClosed.
func (s *DirStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return ErrClosed
	}
	err := s.lock.Close() // closing the file drops the flock
	s.lock = nil
	return err
}

// writeFile writes data to path atomically and durably: to a temporary
// file, fsynced, renamed over path, and path's directory fsynced.
func (s *DirStore) writeFile(path string, data []byte) error {
	s.mu.Lock()
	s.nextTemp++
	tmp := filepath.Join(s.dir, "tmp", fmt.Sprint(s.nextTemp))
	s.mu.Unlock()
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// A record's encoding: its magic, then fields written by enc, then the
// CRC-32C of everything before it.
type enc struct{ b []byte }

func (e *enc) uint(v uint64)  { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) int(v int64)    { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) bytes(v []byte) { e.uint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) str(v string)   { e.uint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) sum() []byte {
	return binary.LittleEndian.AppendUint32(e.b, crc32.Checksum(e.b, castagnoli))
}

type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("malformed record (%s)", what)
	}
}

func (d *dec) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) bytes() []byte {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail("length")
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// open checks b's magic and checksum and returns a decoder of its fields.
func openRecord(b []byte, magic string) *dec {
	if len(b) < len(magic)+4 || string(b[:len(magic)]) != magic {
		return &dec{err: errors.New("not a record of this store (bad magic)")}
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return &dec{err: errors.New("corrupt record (checksum mismatch)")}
	}
	d := &dec{b: body[len(magic):]}
	if v := d.uint(); d.err == nil && v != taskFileVer {
		d.err = fmt.Errorf("record version %d, this program reads %d", v, taskFileVer)
	}
	return d
}

func encodeTask(t *dirTask, snapshot []byte) []byte {
	e := &enc{b: make([]byte, 0, 64+len(t.name)+len(t.id)+len(t.result)+len(snapshot))}
	e.b = append(e.b, taskMagic...)
	e.uint(taskFileVer)
	e.str(string(t.id))
	e.str(t.name)
	e.uint(uint64(t.state))
	e.int(t.seq)
	var due int64
	if !t.due.IsZero() && t.state != Waiting {
		due = t.due.UnixNano()
	}
	e.int(due)
	e.str(t.signal)
	e.bytes(t.result)
	e.str(t.err)
	e.uint(uint64(len(t.consumed)))
	for _, q := range t.consumed {
		e.int(q)
	}
	e.bytes(snapshot)
	return e.sum()
}

func decodeTask(b []byte) (*dirTask, []byte, error) {
	d := openRecord(b, taskMagic)
	t := &dirTask{idx: -1}
	t.id = ID(d.bytes())
	t.name = string(d.bytes())
	t.state = State(d.uint())
	t.seq = d.int()
	if due := d.int(); due != 0 {
		t.due = time.Unix(0, due)
	}
	t.signal = string(d.bytes())
	if r := d.bytes(); len(r) > 0 {
		t.result = append([]byte(nil), r...)
	}
	t.err = string(d.bytes())
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail("consumed")
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		t.consumed = append(t.consumed, d.int())
	}
	snap := d.bytes()
	switch {
	case d.err != nil:
	case len(d.b) != 0:
		d.fail("trailing bytes")
	case t.state == 0 || t.state > Parked:
		d.fail("state")
	case validID(t.id) != nil:
		d.fail("id")
	}
	return t, snap, d.err
}

func encodeSignal(id ID, sg Signal) []byte {
	e := &enc{}
	e.b = append(e.b, signalMagic...)
	e.uint(taskFileVer)
	e.int(sg.Seq)
	e.str(string(id))
	e.str(sg.Name)
	e.bytes(sg.Value)
	return e.sum()
}

func decodeSignal(b []byte) (ID, Signal, error) {
	d := openRecord(b, signalMagic)
	var sg Signal
	sg.Seq = d.int()
	id := ID(d.bytes())
	sg.Name = string(d.bytes())
	sg.Value = append([]byte(nil), d.bytes()...)
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	return id, sg, d.err
}

// dueHeap orders the claimable tasks by the time they become claimable.
type dueHeap struct {
	ts []*dirTask
	at []time.Time
}

type dueItem struct {
	t  *dirTask
	at time.Time
}

func (h *dueHeap) Len() int           { return len(h.ts) }
func (h *dueHeap) Less(i, j int) bool { return h.at[i].Before(h.at[j]) }
func (h *dueHeap) Swap(i, j int) {
	h.ts[i], h.ts[j] = h.ts[j], h.ts[i]
	h.at[i], h.at[j] = h.at[j], h.at[i]
	h.ts[i].idx, h.ts[j].idx = i, j
}
func (h *dueHeap) Push(x any) {
	it := x.(dueItem)
	it.t.idx = len(h.ts)
	h.ts = append(h.ts, it.t)
	h.at = append(h.at, it.at)
}
func (h *dueHeap) Pop() any {
	n := len(h.ts) - 1
	t := h.ts[n]
	h.ts[n] = nil
	h.ts, h.at = h.ts[:n], h.at[:n]
	t.idx = -1
	return t
}
