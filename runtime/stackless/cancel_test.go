//go:build linux

package stackless

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// readAllFrame is
//
//	func readAll(t *Task, fd int) (n int, err error) {
//		var buf [16]byte
//		for {
//			m, err := t.Read(fd, buf[:])
//			if err != nil { t.Close(fd); return n, err }   // cleanup on the error path
//			if m == 0 { t.Close(fd); return n, nil }
//			n += m
//		}
//	}
type readAllFrame struct {
	Base
	fd  int
	buf [16]byte
	n   int
	err error
}

func (f *readAllFrame) Step(t *Task) Status {
	for {
		switch f.PC {
		case 0:
			m, err := t.Read(f.fd, f.buf[:])
			if t.Blocked() {
				return Suspend
			}
			if err != nil || m == 0 {
				f.err = err
				t.Close(f.fd)
				return Done
			}
			f.n += m
		}
	}
}

// callerFrame calls a child frame and keeps the child's error: the parent
// observing the child's result.
type callerFrame struct {
	Base
	child *readAllFrame
	err   error
	n     int
}

func (f *callerFrame) Step(t *Task) Status {
	switch f.PC {
	case 0:
		f.PC = 1
		return t.Call(f.child)
	case 1:
		f.err, f.n = f.child.err, f.child.n
		return Done
	}
	panic("bad pc")
}

// TestCancelRead: a task canceled while waiting in Read: the Read returns
// ErrCanceled, the function's cleanup (closing its fd) runs, and the parent
// frame observes the error.
func TestCancelRead(t *testing.T) {
	l := newLoop(t)
	r, w := pipe(t)
	defer unix.Close(w)
	unix.Write(w, []byte("abc"))
	parent := &callerFrame{child: &readAllFrame{fd: r}}
	task := Spawn(l, parent)
	l.AfterFunc(5*time.Millisecond, task.Cancel)
	run(t, l, 5*time.Second, task)
	if !errors.Is(parent.err, ErrCanceled) {
		t.Fatalf("parent saw %v, want ErrCanceled", parent.err)
	}
	if parent.n != 3 {
		t.Fatalf("read %d bytes before the cancel, want 3", parent.n)
	}
	if isOpen(r) {
		t.Fatal("the cleanup did not close the fd")
	}
	if !task.Canceled() {
		t.Fatal("Canceled() is false")
	}
}

// TestCancelSleep: a task canceled in a long Sleep wakes at once, and its
// later Sleeps return at once too.
func TestCancelSleep(t *testing.T) {
	l := newLoop(t)
	sleeps := 0
	task := Spawn(l, newFn(func(t *Task, pc *int) Status {
		for sleeps < 3 {
			t.Sleep(time.Hour)
			if t.Blocked() {
				return Suspend
			}
			sleeps++
		}
		return Done
	}))
	l.AfterFunc(5*time.Millisecond, task.Cancel)
	start := time.Now()
	run(t, l, 5*time.Second, task)
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("canceled sleeps took %v", el)
	}
	if sleeps != 3 {
		t.Fatalf("%d sleeps returned", sleeps)
	}
	if st := l.Stats(); st.Armed != 0 {
		t.Fatalf("%d waiters still armed", st.Armed)
	}
}

// TestCancelCond: a task canceled in Wait gets false and leaves the Cond;
// a later Signal finds nobody.
func TestCancelCond(t *testing.T) {
	l := newLoop(t)
	var c Cond
	got := true
	task := Spawn(l, newFn(func(t *Task, pc *int) Status {
		got = t.Wait(&c, -1)
		if t.Blocked() {
			return Suspend
		}
		return Done
	}))
	l.AfterFunc(5*time.Millisecond, task.Cancel)
	run(t, l, 5*time.Second, task)
	if got {
		t.Fatal("a canceled Wait reported a signal")
	}
	if c.Len() != 0 || c.Signal() {
		t.Fatal("the canceled task is still on the Cond")
	}
}

// TestCancelBeforeStart: a task canceled before its first step sees
// ErrCanceled from its first operation and never blocks.
func TestCancelBeforeStart(t *testing.T) {
	l := newLoop(t)
	r, w := pipe(t)
	defer unix.Close(w)
	parent := &callerFrame{child: &readAllFrame{fd: r}}
	task := Spawn(l, parent)
	task.Cancel()
	task.Cancel() // idempotent
	run(t, l, 5*time.Second, task)
	if !errors.Is(parent.err, ErrCanceled) {
		t.Fatalf("got %v, want ErrCanceled", parent.err)
	}
	task.Cancel() // a finished task: nothing happens
}

// yielder is
//
//	log("yield"); t.Yield(); log("resumed")
type yielder struct {
	Base
	log *[]string
}

func (f *yielder) Step(t *Task) Status {
	switch f.PC {
	case 0:
		*f.log = append(*f.log, "yield")
		f.PC = 1
		fallthrough
	case 1:
		t.Yield()
		if t.Blocked() {
			return Suspend
		}
		*f.log = append(*f.log, "resumed")
		return Done
	}
	panic("bad pc")
}

// TestYieldResume: a task in Yield waits until Resume (libco's co_yield_ct
// and co_resume); Resume of a task that is not in Yield does nothing.
func TestYieldResume(t *testing.T) {
	l := newLoop(t)
	var log []string
	var c Cond
	y := Spawn(l, &yielder{log: &log})
	other := Spawn(l, newFn(func(t *Task, pc *int) Status {
		t.Wait(&c, -1)
		if t.Blocked() {
			return Suspend
		}
		return Done
	}))
	resumer := Spawn(l, newFn(func(t *Task, pc *int) Status {
		for {
			switch *pc {
			case 0, 1: // two rounds: the yielder stays suspended meanwhile
				t.Gosched()
				if t.Blocked() {
					return Suspend
				}
				log = append(log, "round")
				*pc++
			case 2:
				other.Resume() // waiting on a Cond, not in Yield: no effect
				y.Resume()
				log = append(log, "resume")
				*pc = 3
			case 3:
				t.Gosched()
				if t.Blocked() {
					return Suspend
				}
				return Done
			}
		}
	}))
	run(t, l, 5*time.Second, y, resumer)
	want := []string{"yield", "round", "round", "resume", "resumed"}
	if len(log) != len(want) {
		t.Fatalf("log %v, want %v", log, want)
	}
	for i := range want {
		if log[i] != want[i] {
			t.Fatalf("log %v, want %v", log, want)
		}
	}
	if other.Done() || c.Len() != 1 {
		t.Fatal("Resume woke a task that was not in Yield")
	}
	other.Cancel()
	run(t, l, 5*time.Second, other)
}
