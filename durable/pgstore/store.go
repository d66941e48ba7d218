package pgstore

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// Options tune a [Store]; the zero value is the default.
type Options struct {
	// Schema is the PostgreSQL schema holding the store's tables
	// (created if missing). Stores with different schemas on one database
	// are independent. Default "cogen_durable".
	Schema string
	// Conns bounds the conns of each loop that uses the store for
	// commits, creations, signals and gets (a coroutine that finds them
	// all busy waits for one in its loop). Claim, Renew and Release have
	// one more conn of their own, so that a worker's claims and lease
	// renewals never queue behind its commits. Default 8.
	Conns int
}

// DefaultSchema is the schema of a zero [Options].
const DefaultSchema = "cogen_durable"

// Store is a [durable.Store] on PostgreSQL. It is safe for use by the
// coroutines of any number of loops.
type Store struct {
	cfg    pg.Config
	schema string
	conns  int
	defs   []pg.StmtDef

	closed   atomic.Bool
	migrated atomic.Bool

	mu    sync.Mutex // guards pools and orphans; never held across a wait
	pools map[*loop.Loop]*loopPool
	// orphans are idle conns of loops that have closed: their fds are
	// open and registered with no loop, so any loop may adopt them.
	orphans []*pg.Conn
}

var _ durable.Store = (*Store)(nil)

// Open returns a store on the database cfg names. It does no I/O: the
// first call that needs a conn dials, creates or migrates the schema
// (once per Store) and prepares the statements.
func Open(cfg pg.Config, opts Options) (*Store, error) {
	if opts.Schema == "" {
		opts.Schema = DefaultSchema
	}
	if opts.Conns < 0 {
		return nil, fmt.Errorf("pgstore: Options.Conns %d", opts.Conns)
	}
	if opts.Conns == 0 {
		opts.Conns = 8
	}
	s := &Store{cfg: cfg, schema: opts.Schema, conns: opts.Conns, pools: map[*loop.Loop]*loopPool{}}
	for _, d := range stmtSQL {
		s.defs = append(s.defs, pg.StmtDef{Name: d.Name, SQL: sqlIn(opts.Schema, d.SQL)})
	}
	return s, nil
}

// OpenURL is Open with the config of a postgres:// URL (see pg.ParseURL).
func OpenURL(url string, opts Options) (*Store, error) {
	cfg, err := pg.ParseURL(url)
	if err != nil {
		return nil, err
	}
	return Open(cfg, opts)
}

// Schema returns the schema the store's tables live in.
func (s *Store) Schema() string { return s.schema }

// A loopPool holds the conns of one loop. Only the loop's goroutine uses
// it while the loop is open.
type loopPool struct {
	l    *loop.Loop
	sem  *cosync.Semaphore // the lane of commits and the others
	ctl  *cosync.Semaphore // the lane of Claim, Renew and Release
	idle []*pg.Conn
}

// The lanes of a call.
const (
	laneData = iota
	laneControl
)

func (p *loopPool) lane(lane int) *cosync.Semaphore {
	if lane == laneControl {
		return p.ctl
	}
	return p.sem
}

// pool returns the pool of co's loop, creating it on first use. Creating
// one sweeps the pools of loops that have closed: their idle conns become
// orphans, for any loop to adopt.
func (s *Store) pool(co *stackful.Co) *loopPool {
	l := co.Env().Loop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pools[l]; p != nil {
		return p
	}
	for ql, q := range s.pools {
		// Submit fails only once the loop has closed; after that nothing
		// touches q.idle (Close's lock orders its last use before this).
		if ql.Submit(func() {}) != nil {
			s.orphans = append(s.orphans, q.idle...)
			delete(s.pools, ql)
		}
	}
	p := &loopPool{l: l, sem: cosync.NewSemaphore(int64(s.conns)), ctl: cosync.NewSemaphore(1)}
	s.pools[l] = p
	return p
}

func (s *Store) adopt() *pg.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.orphans); n > 0 {
		c := s.orphans[n-1]
		s.orphans = s.orphans[:n-1]
		return c
	}
	return nil
}

// A held is a conn taken from a loop's pool for one call.
type held struct {
	p    *loopPool
	c    *pg.Conn
	lane int
}

// acquire returns a conn of co's loop for a call of the lane, dialling
// one if none is idle.
func (s *Store) acquire(co *stackful.Co, lane int) (held, error) {
	if s.closed.Load() {
		return held{}, durable.ErrClosed
	}
	p := s.pool(co)
	if err := p.lane(lane).Acquire(co, 1); err != nil {
		return held{}, fmt.Errorf("pgstore: %w", err)
	}
	h := held{p: p, lane: lane}
	if n := len(p.idle); n > 0 {
		h.c = p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		return h, nil
	}
	if h.c = s.adopt(); h.c != nil {
		return h, nil
	}
	c, err := s.dial(co)
	if err != nil {
		p.lane(lane).Release(1)
		return held{}, err
	}
	h.c = c
	return h, nil
}

func (s *Store) dial(co *stackful.Co) (*pg.Conn, error) {
	c, err := pg.Connect(co, s.cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	if !s.migrated.Load() {
		if err := migrate(co, c, s.schema); err != nil {
			c.Close(co)
			return nil, err
		}
		s.migrated.Store(true)
	}
	if err := c.PrepareAll(co, s.defs); err != nil {
		c.Close(co)
		return nil, fmt.Errorf("pgstore: preparing statements: %w", err)
	}
	// bytea columns come in binary: the bytes as they are.
	for _, d := range s.defs {
		st := c.Stmt(d.Name)
		for i, f := range st.Fields {
			if f.DataTypeOID == oidBytea {
				st.Formats[i] = 1
			}
		}
	}
	return c, nil
}

// release gives h's conn back: kept if healthy and idle, closed
// otherwise (a broken conn, a store closed meanwhile).
func (s *Store) release(co *stackful.Co, h held) {
	if c := h.c; s.closed.Load() || c.Err() != nil || !c.Idle() || c.TxStatus() != 'I' {
		c.Close(co)
	} else {
		h.p.idle = append(h.p.idle, c)
	}
	h.p.lane(h.lane).Release(1)
}

// Close closes the idle conns (on their loops, or at once for loops that
// have closed); conns in use are closed when their calls end. Later calls
// fail with durable.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.mu.Lock()
	pools, orphans := s.pools, s.orphans
	s.pools, s.orphans = map[*loop.Loop]*loopPool{}, nil
	s.mu.Unlock()
	for l, p := range pools {
		err := l.Submit(func() {
			for _, c := range p.idle {
				l.CloseFD(c.FD())
			}
			p.idle = nil
		})
		if err != nil {
			orphans = append(orphans, p.idle...)
		}
	}
	for _, c := range orphans {
		unix.Close(c.FD())
	}
	return nil
}

// exec runs one statement with args on a conn of the lane and reads its
// result into rows.
func (s *Store) exec(co *stackful.Co, lane int, rows *pg.Rows, stmt string, args ...pg.Arg) error {
	h, err := s.acquire(co, lane)
	if err != nil {
		return err
	}
	defer s.release(co, h)
	c := h.c
	if err := c.Queue(c.Stmt(stmt), args...); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	if err := c.Send(co); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	if err := c.Next(co, rows); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	return nil
}

func idArg(id durable.ID) pg.Arg { return pg.Text(string(id)) }

func bytesArg(b []byte) pg.Arg {
	if b == nil {
		return pg.Null()
	}
	return pg.Bytes(b)
}

const oidBytea = 17

// dueNow is the due parameter that stands for the database's now().
const dueNow = math.MinInt64

func dueArg(t time.Time) pg.Arg {
	if t.IsZero() {
		return pg.Int(dueNow)
	}
	return pg.Int(t.UnixMicro())
}

func leaseArg(d time.Duration) pg.Arg {
	return pg.Int(max(d.Milliseconds(), 0))
}

// Create implements [durable.Store.Create].
func (s *Store) Create(co *stackful.Co, id durable.ID, name string, snapshot []byte) error {
	var rows pg.Rows
	if err := s.exec(co, laneData, &rows, "pgstore_create", idArg(id), pg.Text(name), bytesArg(snapshot), pg.Int(dueNow)); err != nil {
		return fmt.Errorf("pgstore: create %q: %w", id, err)
	}
	if rows.RowsAffected() == 0 {
		return fmt.Errorf("pgstore: create %q: %w", id, durable.ErrExists)
	}
	return nil
}

// Claim implements [durable.Store.Claim].
func (s *Store) Claim(co *stackful.Co, worker string, lease time.Duration, max int) ([]durable.Claimed, error) {
	if max <= 0 {
		return nil, nil
	}
	var rows pg.Rows
	if err := s.exec(co, laneControl, &rows, "pgstore_claim", pg.Text(worker), leaseArg(lease), pg.Int(int64(max))); err != nil {
		return nil, fmt.Errorf("pgstore: claim: %w", err)
	}
	// Rows: one per (task, signal) ordered by due, id, signal; the
	// task's columns are repeated and its snapshot is only on its first.
	var out []durable.Claimed
	for i := range rows.Len() {
		id := durable.ID(rows.Text(i, 0))
		if len(out) == 0 || out[len(out)-1].ID != id {
			seq, _ := rows.Int(i, 3)
			out = append(out, durable.Claimed{
				ID:       id,
				Name:     rows.Text(i, 1),
				Seq:      seq,
				Snapshot: cloneBytes(rows.Bytes(i, 2)),
			})
		}
		if rows.IsNull(i, 4) {
			continue
		}
		sig, err := rows.Int(i, 4)
		if err != nil {
			continue
		}
		c := &out[len(out)-1]
		c.Signals = append(c.Signals, durable.Signal{Seq: sig, Name: rows.Text(i, 5), Value: cloneBytes(rows.Bytes(i, 6))})
	}
	return out, nil
}

// cloneBytes copies a cell (nil stays nil, empty stays empty).
func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// Commit implements [durable.Store.Commit]: the fenced update and the
// deletion of the consumed signals are one statement; a Waiting commit
// adds a second in the same pipeline (one round trip, one transaction)
// that makes the task due if a signal of its name is queued.
func (s *Store) Commit(co *stackful.Co, worker string, lease time.Duration, cm *durable.Commit) error {
	state, ok := stateText(cm.State)
	if !ok {
		return fmt.Errorf("pgstore: commit %q: state %v", cm.ID, cm.State)
	}
	release := cm.Release || cm.State.Terminal()
	due, waitName, result, errText := pg.Null(), pg.Null(), pg.Null(), pg.Null()
	switch cm.State {
	case durable.Running, durable.Sleeping:
		due = dueArg(cm.Due)
	case durable.Waiting:
		waitName = pg.Text(cm.Signal)
	case durable.Done:
		result = bytesArg(cm.Result)
	}
	if cm.Error != "" {
		errText = pg.Text(cm.Error)
	}
	consumed := make([]byte, 0, 2+len(cm.Consumed)*8)
	consumed = append(consumed, '{')
	for i, id := range cm.Consumed {
		if i > 0 {
			consumed = append(consumed, ',')
		}
		consumed = strconv.AppendInt(consumed, id, 10)
	}
	consumed = append(consumed, '}')

	h, err := s.acquire(co, laneData)
	if err != nil {
		return fmt.Errorf("pgstore: commit %q: %w", cm.ID, err)
	}
	defer s.release(co, h)
	c := h.c
	err = c.Queue(c.Stmt("pgstore_commit"), idArg(cm.ID), pg.Text(worker), pg.Int(cm.Seq),
		bytesArg(cm.Snapshot), pg.Text(state), due, waitName, pg.Text(strconv.FormatBool(release)),
		leaseArg(lease), result, errText, pg.Text(string(consumed)))
	if err == nil && cm.State == durable.Waiting {
		err = c.Queue(c.Stmt("pgstore_wake"), idArg(cm.ID), pg.Int(cm.Seq+1))
	}
	if err == nil {
		err = c.Send(co)
	}
	if err != nil {
		return fmt.Errorf("pgstore: commit %q: %w", cm.ID, err)
	}
	rows := c.Rows()
	err = c.Next(co, rows)
	n := int64(0)
	if err == nil {
		n, err = rows.Int(0, 0)
	}
	if cm.State == durable.Waiting {
		if werr := c.Next(co, rows); err == nil {
			err = werr
		}
	}
	if err != nil {
		return fmt.Errorf("pgstore: commit %q: %w", cm.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("pgstore: commit %q by %s at seq %d: %w", cm.ID, worker, cm.Seq, durable.ErrLeaseLost)
	}
	return nil
}

// Renew implements [durable.Store.Renew].
func (s *Store) Renew(co *stackful.Co, worker string, lease time.Duration, ids []durable.ID) ([]durable.ID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var rows pg.Rows
	if err := s.exec(co, laneControl, &rows, "pgstore_renew", pg.Text(worker), leaseArg(lease), idsArg(ids)); err != nil {
		return nil, fmt.Errorf("pgstore: renew: %w", err)
	}
	held := make(map[durable.ID]bool, rows.Len())
	for i := range rows.Len() {
		held[durable.ID(rows.Text(i, 0))] = true
	}
	var lost []durable.ID
	for _, id := range ids {
		if !held[id] {
			lost = append(lost, id)
		}
	}
	return lost, nil
}

func idsArg(ids []durable.ID) pg.Arg {
	ss := make([]string, len(ids))
	for i, id := range ids {
		ss[i] = string(id)
	}
	return pg.Text(string(appendTextArray(nil, ss)))
}

// Release implements [durable.Store.Release].
func (s *Store) Release(co *stackful.Co, worker string, ids []durable.ID) error {
	if len(ids) == 0 {
		return nil
	}
	var rows pg.Rows
	if err := s.exec(co, laneControl, &rows, "pgstore_release", pg.Text(worker), idsArg(ids)); err != nil {
		return fmt.Errorf("pgstore: release: %w", err)
	}
	return nil
}

// ReleaseWorker implements [durable.WorkerReleaser]: one statement over
// the leased tasks.
func (s *Store) ReleaseWorker(co *stackful.Co, worker string) (int, error) {
	var rows pg.Rows
	if err := s.exec(co, laneControl, &rows, "pgstore_release_worker", pg.Text(worker)); err != nil {
		return 0, fmt.Errorf("pgstore: release the leases of %q: %w", worker, err)
	}
	return rows.Len(), nil
}

// Signal implements [durable.Store.Signal].
func (s *Store) Signal(co *stackful.Co, id durable.ID, name string, value []byte) (int64, error) {
	if value == nil {
		value = []byte{}
	}
	var rows pg.Rows
	if err := s.exec(co, laneData, &rows, "pgstore_signal", idArg(id), pg.Text(name), pg.Bytes(value)); err != nil {
		return 0, fmt.Errorf("pgstore: signal %q to %q: %w", name, id, err)
	}
	if rows.Len() == 0 {
		return 0, fmt.Errorf("pgstore: signal %q to %q: %w", name, id, durable.ErrNotFound)
	}
	if rows.IsNull(0, 1) {
		return 0, fmt.Errorf("pgstore: signal %q to %q (%s): %w", name, id, rows.Text(0, 0), durable.ErrFinished)
	}
	seq, err := rows.Int(0, 1)
	if err != nil {
		return 0, fmt.Errorf("pgstore: signal %q to %q: %w", name, id, err)
	}
	return seq, nil
}

// Get implements [durable.Store.Get]. A row in a state this package does
// not know is returned with State 0 and an Error saying so.
func (s *Store) Get(co *stackful.Co, id durable.ID) (durable.Info, error) {
	var rows pg.Rows
	if err := s.exec(co, laneData, &rows, "pgstore_get", idArg(id)); err != nil {
		return durable.Info{}, fmt.Errorf("pgstore: get %q: %w", id, err)
	}
	if rows.Len() == 0 {
		return durable.Info{}, fmt.Errorf("pgstore: get %q: %w", id, durable.ErrNotFound)
	}
	return infoAt(&rows, 0, id), nil
}

// infoAt reads row i of get's columns (list's first ten).
func infoAt(rows *pg.Rows, i int, id durable.ID) durable.Info {
	info := durable.Info{
		ID:     id,
		Name:   rows.Text(i, 0),
		Signal: rows.Text(i, 6),
		Error:  rows.Text(i, 4),
		Owner:  rows.Text(i, 5),
		Result: cloneBytes(rows.Bytes(i, 3)),
	}
	st := rows.Text(i, 1)
	info.State = stateOf(st)
	if info.State == 0 && info.Error == "" {
		info.Error = fmt.Sprintf("pgstore: unknown state %q", st)
	}
	info.Seq, _ = rows.Int(i, 2)
	if !rows.IsNull(i, 7) {
		us, _ := rows.Int(i, 7)
		info.Due = time.UnixMicro(us)
	}
	if !rows.IsNull(i, 8) && info.Owner != "" {
		us, _ := rows.Int(i, 8)
		info.Lease = time.UnixMicro(us)
	}
	n, _ := rows.Int(i, 9)
	info.Pending = int(n)
	if info.State != durable.Waiting {
		info.Signal = ""
	}
	return info
}

// Delete implements [durable.Store.Delete]: one round trip, two
// statements in one transaction (the task's row, then its signals).
func (s *Store) Delete(co *stackful.Co, id durable.ID) error {
	h, err := s.acquire(co, laneData)
	if err != nil {
		return fmt.Errorf("pgstore: delete %q: %w", id, err)
	}
	defer s.release(co, h)
	c := h.c
	err = c.Queue(c.Stmt("pgstore_delete"), idArg(id))
	if err == nil {
		err = c.Queue(c.Stmt("pgstore_delete_signals"), idArg(id))
	}
	if err == nil {
		err = c.Send(co)
	}
	if err != nil {
		return fmt.Errorf("pgstore: delete %q: %w", id, err)
	}
	rows := c.Rows()
	err = c.Next(co, rows)
	n := int64(0)
	state, known := "", false
	if err == nil {
		n, err = rows.Int(0, 0)
		state, known = rows.Text(0, 1), !rows.IsNull(0, 1)
	}
	if serr := c.Next(co, rows); err == nil {
		err = serr
	}
	switch {
	case err != nil:
		return fmt.Errorf("pgstore: delete %q: %w", id, err)
	case n == 1:
		return nil
	case !known:
		return fmt.Errorf("pgstore: delete %q: %w", id, durable.ErrNotFound)
	}
	return fmt.Errorf("pgstore: delete %q: %w (%s)", id, durable.ErrNotEnded, state)
}

// List implements [durable.Store.List]: one round trip. The rows are
// selected by a scan of the tasks table (there is no index by state)
// and sorted by ID in byte order (COLLATE "C"): a page costs a pass over
// the table, which suits maintenance (deleting ended tasks), not a hot
// path.
func (s *Store) List(co *stackful.Co, state durable.State, after durable.ID, max int) ([]durable.Info, error) {
	st := ""
	if state != 0 {
		var ok bool
		if st, ok = stateText(state); !ok {
			return nil, fmt.Errorf("pgstore: list: unknown state %d", state)
		}
	}
	if max <= 0 {
		return nil, nil
	}
	var rows pg.Rows
	if err := s.exec(co, laneData, &rows, "pgstore_list", pg.Text(st), idArg(after), pg.Int(int64(max))); err != nil {
		return nil, fmt.Errorf("pgstore: list: %w", err)
	}
	out := make([]durable.Info, rows.Len())
	for i := range out {
		out[i] = infoAt(&rows, i, durable.ID(rows.Text(i, 10)))
	}
	return out, nil
}

func stateText(s durable.State) (string, bool) {
	switch s {
	case durable.Running:
		return stateRunning, true
	case durable.Sleeping:
		return stateSleeping, true
	case durable.Waiting:
		return stateWaiting, true
	case durable.Done:
		return stateDone, true
	case durable.Failed:
		return stateFailed, true
	case durable.Parked:
		return stateParked, true
	}
	return "", false
}

func stateOf(s string) durable.State {
	switch s {
	case stateRunning:
		return durable.Running
	case stateSleeping:
		return durable.Sleeping
	case stateWaiting:
		return durable.Waiting
	case stateDone:
		return durable.Done
	case stateFailed:
		return durable.Failed
	case stateParked:
		return durable.Parked
	}
	return 0
}
