package pgstore

import (
	"errors"
	"fmt"
	"github.com/cogen-go/cogen/client/pg"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestLifecycle walks one task through the store's operations: create,
// claim, commit (running, waiting, done), a signal sent before and one
// sent while waiting, a commit by a worker without the lease, renew and
// release.
func TestLifecycle(t *testing.T) {
	s := openTest(t)
	const lease = 5 * time.Second
	inCo(t, func(co *stackful.Co) {
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.Create(co, "a", "wf", []byte{1, 2, 3}))
		if err := s.Create(co, "a", "wf", nil); !errors.Is(err, durable.ErrExists) {
			t.Fatalf("second create: %v", err)
		}
		sig1, err := s.Signal(co, "a", "go", []byte("early"))
		must(err)
		cl, err := s.Claim(co, "w1", lease, 10)
		must(err)
		if len(cl) != 1 || cl[0].ID != "a" || cl[0].Name != "wf" || cl[0].Seq != 0 ||
			string(cl[0].Snapshot) != "\x01\x02\x03" || len(cl[0].Signals) != 1 ||
			cl[0].Signals[0].Seq != sig1 || cl[0].Signals[0].Name != "go" || string(cl[0].Signals[0].Value) != "early" {
			t.Fatalf("claim: %+v", cl)
		}
		if cl, err := s.Claim(co, "w2", lease, 10); err != nil || len(cl) != 0 {
			t.Fatalf("claim of a leased task: %v %+v", err, cl)
		}
		if err := s.Commit(co, "w2", lease, &durable.Commit{ID: "a", Seq: 0, State: durable.Running}); !errors.Is(err, durable.ErrLeaseLost) {
			t.Fatalf("commit by another worker: %v", err)
		}
		// Consume the early signal, then wait for another.
		must(s.Commit(co, "w1", lease, &durable.Commit{ID: "a", Seq: 0, State: durable.Waiting, Signal: "go",
			Snapshot: []byte{4}, Consumed: []int64{sig1}, Release: true}))
		if err := s.Commit(co, "w1", lease, &durable.Commit{ID: "a", Seq: 0, State: durable.Running}); !errors.Is(err, durable.ErrLeaseLost) {
			t.Fatalf("commit at an old seq: %v", err)
		}
		info, err := s.Get(co, "a")
		must(err)
		if info.State != durable.Waiting || info.Signal != "go" || !info.Due.IsZero() || info.Owner != "" || info.Seq != 1 || info.Pending != 0 {
			t.Fatalf("waiting: %+v", info)
		}
		if cl, _ := s.Claim(co, "w1", lease, 10); len(cl) != 0 {
			t.Fatalf("a waiting task was claimed: %+v", cl)
		}
		sig2, err := s.Signal(co, "a", "go", []byte("late"))
		must(err)
		cl, err = s.Claim(co, "w2", lease, 10)
		must(err)
		if len(cl) != 1 || cl[0].Seq != 1 || string(cl[0].Snapshot) != "\x04" || len(cl[0].Signals) != 1 || cl[0].Signals[0].Seq != sig2 {
			t.Fatalf("claim after the signal: %+v", cl)
		}
		lost, err := s.Renew(co, "w2", lease, []durable.ID{"a", "nope"})
		must(err)
		if !slices.Equal(lost, []durable.ID{"nope"}) {
			t.Fatalf("renew: lost %v", lost)
		}
		must(s.Commit(co, "w2", lease, &durable.Commit{ID: "a", Seq: 1, State: durable.Done, Result: []byte("ok"), Consumed: []int64{sig2}}))
		info, err = s.Get(co, "a")
		must(err)
		if info.State != durable.Done || string(info.Result) != "ok" || info.Owner != "" || info.Seq != 2 || info.Pending != 0 {
			t.Fatalf("done: %+v", info)
		}
		if _, err := s.Signal(co, "a", "go", nil); !errors.Is(err, durable.ErrFinished) {
			t.Fatalf("signal to a done task: %v", err)
		}
		if _, err := s.Signal(co, "b", "go", nil); !errors.Is(err, durable.ErrNotFound) {
			t.Fatalf("signal to no task: %v", err)
		}
		if _, err := s.Get(co, "b"); !errors.Is(err, durable.ErrNotFound) {
			t.Fatalf("get of no task: %v", err)
		}
	})
}

// TestSignalWhileRunning: a signal queued while the task runs (before its
// Waiting commit, which does not consume it) makes the Waiting commit due
// at once.
func TestSignalWhileRunning(t *testing.T) {
	s := openTest(t)
	inCo(t, func(co *stackful.Co) {
		if err := s.Create(co, "a", "wf", []byte{1}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Claim(co, "w", time.Minute, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Signal(co, "a", "x", []byte("v")); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(co, "w", time.Minute, &durable.Commit{ID: "a", State: durable.Waiting, Signal: "x", Release: true}); err != nil {
			t.Fatal(err)
		}
		info, err := s.Get(co, "a")
		if err != nil || info.State != durable.Waiting || info.Due.IsZero() || info.Pending != 1 {
			t.Fatalf("%v %+v", err, info)
		}
		cl, err := s.Claim(co, "w", time.Minute, 1)
		if err != nil || len(cl) != 1 || len(cl[0].Signals) != 1 {
			t.Fatalf("%v %+v", err, cl)
		}
	})
}

// TestOddRows: rows no worker wrote (NULL snapshots, unknown states, an
// owner without a lease time, a waiting task without a name) are claimed
// or skipped by their columns and returned as they are, never a panic.
func TestOddRows(t *testing.T) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	s, err := OpenURL(url, Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inCo(t, func(co *stackful.Co) {
		if _, err := s.Get(co, "none"); !errors.Is(err, durable.ErrNotFound) { // creates the schema
			t.Fatal(err)
		}
	})
	q := quoteIdent(schema)
	sqlExec(t, url, `INSERT INTO `+q+`.tasks (id, name, state, snapshot, due, owner, lease_until, wait_name, result, error) VALUES
		('nullsnap', 'wf', 'running', NULL, now(), NULL, NULL, NULL, NULL, NULL),
		('zombie', 'wf', 'zombie', '\x01', now(), NULL, NULL, NULL, NULL, NULL),
		('ghost', 'wf', 'sleeping', '\x02', now(), 'ghost', NULL, NULL, NULL, NULL),
		('noname', 'wf', 'waiting', '\x03', now(), NULL, NULL, NULL, NULL, NULL),
		('nodue', 'wf', 'running', '\x04', NULL, NULL, NULL, NULL, NULL, NULL),
		('garbage', '', 'done', '\xdeadbeef', NULL, NULL, NULL, 'x', '\x00', 'boom')`)
	sqlExec(t, url, `INSERT INTO `+q+`.signals (task_id, name, value) VALUES ('noname', 'x', NULL), ('nobody', 'y', '\x05')`)
	inCo(t, func(co *stackful.Co) {
		cl, err := s.Claim(co, "w", time.Minute, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := map[durable.ID]durable.Claimed{}
		for _, c := range cl {
			got[c.ID] = c
		}
		if len(got) != 3 || got["nullsnap"].Snapshot != nil || string(got["ghost"].Snapshot) != "\x02" ||
			len(got["noname"].Signals) != 1 || got["noname"].Signals[0].Value != nil {
			t.Fatalf("claimed %+v", cl)
		}
		info, err := s.Get(co, "zombie")
		if err != nil || info.State != 0 || info.Error == "" {
			t.Fatalf("zombie: %v %+v", err, info)
		}
		info, err = s.Get(co, "garbage")
		if err != nil || info.State != durable.Done || info.Error != "boom" || string(info.Result) != "\x00" || info.Signal != "" {
			t.Fatalf("garbage: %v %+v", err, info)
		}
		if _, err := s.Signal(co, "zombie", "z", nil); err != nil {
			t.Fatalf("signal to an unknown state: %v", err)
		}
		// The claimed odd rows commit like any other.
		for _, id := range []durable.ID{"nullsnap", "ghost", "noname"} {
			if err := s.Commit(co, "w", time.Minute, &durable.Commit{ID: id, State: durable.Parked, Error: "odd"}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSignalCommitRace sends a signal concurrently with the commit that
// makes its task wait for it, on two conns, many times over: every task
// must end due (claimable), whichever commits first. The signal locks the
// task's row, and the commit's wake statement runs after the commit's
// lock; a signal that only updated waiting rows could slip between the
// wake's snapshot and the commit's lock.
func TestSignalCommitRace(t *testing.T) {
	s := openTest(t)
	const n = 200
	inCo(t, func(co *stackful.Co) {
		for i := range n {
			if err := s.Create(co, durable.ID(fmt.Sprint(i)), "wf", []byte{1}); err != nil {
				t.Fatal(err)
			}
		}
		cl, err := s.Claim(co, "w", time.Minute, n)
		if err != nil || len(cl) != n {
			t.Fatalf("claim: %v, %d", err, len(cl))
		}
		env := co.Env()
		done := 0
		for i := range n {
			id := durable.ID(fmt.Sprint(i))
			env.Create(func(co *stackful.Co) {
				if err := s.Commit(co, "w", time.Minute, &durable.Commit{ID: id, State: durable.Waiting, Signal: "x", Release: true}); err != nil {
					t.Error(err)
				}
				done++
			}, nil).Resume()
			env.Create(func(co *stackful.Co) {
				if _, err := s.Signal(co, id, "x", []byte("v")); err != nil {
					t.Error(err)
				}
				done++
			}, nil).Resume()
		}
		for done < 2*n {
			co.Sleep(time.Millisecond)
		}
		stuck := 0
		for i := range n {
			info, err := s.Get(co, durable.ID(fmt.Sprint(i)))
			if err != nil {
				t.Fatal(err)
			}
			if info.State != durable.Waiting || info.Pending != 1 {
				t.Fatalf("%d: %+v", i, info)
			}
			if info.Due.IsZero() {
				stuck++
			}
		}
		if stuck > 0 {
			t.Fatalf("%d of %d waiting tasks with a queued signal are not due", stuck, n)
		}
	})
}

// TestMigrateConcurrently opens 8 stores on one new schema at once, each
// from its own goroutine and loop: every first call succeeds (the schema
// is created and migrated once, under the advisory lock), and a schema
// whose version is newer than the package's is refused.
func TestMigrateConcurrently(t *testing.T) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			errs <- durable.Do(func(co *stackful.Co) error {
				s, err := OpenURL(url, Options{Schema: schema})
				if err != nil {
					return err
				}
				defer s.Close()
				if _, err := s.Get(co, "x"); !errors.Is(err, durable.ErrNotFound) {
					return fmt.Errorf("first Get: %v", err)
				}
				return nil
			})
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if v := queryInt(t, url, `SELECT version::bigint FROM `+quoteIdent(schema)+`.schema_version`); v != schemaVersion {
		t.Fatalf("schema version %d, want %d", v, schemaVersion)
	}
	sqlExec(t, url, `UPDATE `+quoteIdent(schema)+`.schema_version SET version = 99`)
	err := durable.Do(func(co *stackful.Co) error {
		s, err := OpenURL(url, Options{Schema: schema})
		if err != nil {
			return err
		}
		defer s.Close()
		_, err = s.Get(co, "x")
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("a schema of version 99: %v", err)
	}
}

// TestMigrateFromV1 upgrades a schema of version 1 holding tasks (one
// free, one under an expired lease, one under a live lease) to the
// current version: the tasks keep their rows, and a claim takes the two
// claimable ones.
func TestMigrateFromV1(t *testing.T) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	cfg, err := pg.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	inCo(t, func(co *stackful.Co) {
		c, err := pg.Connect(co, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(co)
		if err := migrateTo(co, c, schema, 1); err != nil {
			t.Fatal(err)
		}
	})
	q := quoteIdent(schema)
	if v := queryInt(t, url, `SELECT version::bigint FROM `+q+`.schema_version`); v != 1 {
		t.Fatalf("version %d after migrating to 1", v)
	}
	sqlExec(t, url, `INSERT INTO `+q+`.tasks (id, name, state, snapshot, due, owner, lease_until) VALUES
		('free', 'wf', 'running', '\x01', now(), NULL, NULL),
		('expired', 'wf', 'running', '\x02', now(), 'dead', now() - interval '1 second'),
		('live', 'wf', 'running', '\x03', now(), 'alive', now() + interval '1 hour')`)
	s, err := OpenURL(url, Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inCo(t, func(co *stackful.Co) {
		cl, err := s.Claim(co, "w", time.Minute, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range cl {
			ids = append(ids, string(c.ID))
		}
		slices.Sort(ids)
		if !slices.Equal(ids, []string{"expired", "free"}) {
			t.Fatalf("claimed %v", ids)
		}
	})
	if v := queryInt(t, url, `SELECT version::bigint FROM `+q+`.schema_version`); v != schemaVersion {
		t.Fatalf("version %d, want %d", v, schemaVersion)
	}
	if n := queryInt(t, url, `SELECT count(*) FROM pg_indexes WHERE schemaname = '`+schema+`' AND indexname IN ('tasks_free', 'tasks_leased')`); n != 2 {
		t.Fatalf("%d of the version 2 indexes", n)
	}
}
