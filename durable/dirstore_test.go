package durable_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/storetest"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func TestDirStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) durable.Store {
		s, err := durable.OpenDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// mainCo returns the main coroutine of a new env, closed with the test.
func mainCo(t *testing.T) *stackful.Co {
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env.Main()
}

func openDir(t *testing.T, dir string) *durable.DirStore {
	t.Helper()
	s, err := durable.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDirStoreReopen: what was committed is there after a reopen, leases
// are not (the process that held them is gone), and a waiting task with a
// queued signal is due.
func TestDirStoreReopen(t *testing.T) {
	co := mainCo(t)
	dir := t.TempDir()
	s := openDir(t, dir)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Create(co, "a", "wf", []byte("a0")))
	must(s.Create(co, "b", "wf", []byte("b0")))
	must(s.Create(co, "c", "wf", []byte("c0")))
	if cs, err := s.Claim(co, "w1", time.Hour, 10); err != nil || len(cs) != 3 {
		t.Fatalf("claim: %v %v", cs, err)
	}
	due := time.Now().Add(time.Hour).Round(0)
	must(s.Commit(co, "w1", time.Hour, &durable.Commit{ID: "a", Seq: 0, State: durable.Sleeping, Snapshot: []byte("a1"), Due: due}))
	must(s.Commit(co, "w1", time.Hour, &durable.Commit{ID: "b", Seq: 0, State: durable.Waiting, Signal: "go", Snapshot: []byte("b1"), Release: true}))
	must(s.Commit(co, "w1", time.Hour, &durable.Commit{ID: "c", Seq: 0, State: durable.Done, Result: []byte("r")}))
	if _, err := s.Signal(co, "b", "go", []byte("v")); err != nil {
		t.Fatal(err)
	}
	must(s.Close())

	s = openDir(t, dir)
	defer s.Close()
	a, _ := s.Get(co, "a")
	if a.State != durable.Sleeping || a.Seq != 1 || !a.Due.Equal(due) || a.Owner != "" {
		t.Errorf("a after reopen: %+v (due %v)", a, due)
	}
	if c, _ := s.Get(co, "c"); c.State != durable.Done || string(c.Result) != "r" {
		t.Errorf("c after reopen: %+v", c)
	}
	cs, err := s.Claim(co, "w2", time.Hour, 10)
	if err != nil || len(cs) != 1 || cs[0].ID != "b" || string(cs[0].Snapshot) != "b1" || len(cs[0].Signals) != 1 || string(cs[0].Signals[0].Value) != "v" {
		t.Fatalf("claim after reopen: %+v %v; want b, due with its signal", cs, err)
	}
}

// TestDirStoreDeleteReopen: a deleted task's file and its signals' files
// are gone from the directory: a reopened store does not know the task,
// and a task created again under its ID has none of its signals.
func TestDirStoreDeleteReopen(t *testing.T) {
	co := mainCo(t)
	dir := t.TempDir()
	s := openDir(t, dir)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Create(co, "p", "wf", []byte("p0")))
	must(s.Create(co, "q", "wf", []byte("q0")))
	if cs, err := s.Claim(co, "w1", time.Hour, 10); err != nil || len(cs) != 2 {
		t.Fatalf("claim: %v %v", cs, err)
	}
	must(s.Commit(co, "w1", time.Hour, &durable.Commit{ID: "p", Seq: 0, State: durable.Parked, Error: "changed"}))
	must(s.Commit(co, "w1", time.Hour, &durable.Commit{ID: "q", Seq: 0, State: durable.Parked, Error: "changed"}))
	for _, id := range []durable.ID{"p", "p", "q"} {
		if _, err := s.Signal(co, id, "x", []byte("old")); err != nil {
			t.Fatal(err)
		}
	}
	must(s.Delete(co, "p"))
	must(s.Close())
	if sigs, _ := os.ReadDir(filepath.Join(dir, "signals")); len(sigs) != 1 {
		t.Errorf("%d signal files after deleting p, want q's 1", len(sigs))
	}

	s = openDir(t, dir)
	defer s.Close()
	if _, err := s.Get(co, "p"); !errors.Is(err, durable.ErrNotFound) {
		t.Errorf("Get of deleted p after reopen: %v, want ErrNotFound", err)
	}
	if q, err := s.Get(co, "q"); err != nil || q.State != durable.Parked || q.Pending != 1 {
		t.Errorf("q after reopen: %+v %v, want parked with 1 signal", q, err)
	}
	must(s.Create(co, "p", "wf", []byte("p-new")))
	if p, _ := s.Get(co, "p"); p.Pending != 0 || p.State != durable.Running {
		t.Errorf("p created again: %+v, want running without signals", p)
	}
}

// TestDirStoreConsumedSignalRemovedOnOpen: a process killed between a
// commit that consumed a signal and the removal of the signal's file
// leaves the file; Open removes it rather than deliver it again.
func TestDirStoreConsumedSignalRemovedOnOpen(t *testing.T) {
	co := mainCo(t)
	dir := t.TempDir()
	s := openDir(t, dir)
	s.Create(co, "a", "wf", []byte("a0"))
	q, err := s.Signal(co, "a", "go", []byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	sigs, _ := filepath.Glob(filepath.Join(dir, "signals", "*.sig"))
	if len(sigs) != 1 {
		t.Fatalf("signal files %v", sigs)
	}
	saved, _ := os.ReadFile(sigs[0])
	s.Claim(co, "w1", time.Hour, 10)
	if err := s.Commit(co, "w1", time.Hour, &durable.Commit{ID: "a", Seq: 0, State: durable.Running, Consumed: []int64{q}, Release: true}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The crash: the file is back as if its removal never happened.
	if err := os.WriteFile(sigs[0], saved, 0o644); err != nil {
		t.Fatal(err)
	}
	s = openDir(t, dir)
	defer s.Close()
	cs, err := s.Claim(co, "w1", time.Hour, 10)
	if err != nil || len(cs) != 1 || len(cs[0].Signals) != 0 {
		t.Fatalf("claimed %+v %v; want a without the consumed signal", cs, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "signals", "*.sig")); len(left) != 0 {
		t.Errorf("signal files left: %v", left)
	}
}

func TestDirStoreLocked(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir)
	_, err := durable.OpenDir(dir)
	if err == nil || !strings.Contains(err.Error(), "in use by another store") {
		t.Fatalf("second OpenDir: %v, want in use", err)
	}
	s.Close()
	s = openDir(t, dir) // free again
	s.Close()
}

func TestDirStoreBadFiles(t *testing.T) {
	co := mainCo(t)
	dir := t.TempDir()
	s := openDir(t, dir)
	s.Create(co, "a", "wf", []byte("a0"))
	s.Close()
	path := filepath.Join(dir, "tasks", "t-a")
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 1
	os.WriteFile(path, b, 0o644)
	if _, err := durable.OpenDir(dir); err == nil || !strings.Contains(err.Error(), "t-a") || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("OpenDir with a corrupt task file: %v", err)
	}
	os.Remove(path)
	os.WriteFile(filepath.Join(dir, "VERSION"), []byte("cogen durable dir 9\n"), 0o644)
	if _, err := durable.OpenDir(dir); err == nil || !strings.Contains(err.Error(), "dir 9") {
		t.Errorf("OpenDir of another layout: %v", err)
	}
}
