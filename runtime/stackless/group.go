package stackless

import (
	"fmt"
	"runtime"

	"github.com/cogen-go/cogen/runtime/loop"
)

// A Group runs stackless tasks on the N loops of a [loop.Group], each on
// its own goroutine locked to an OS thread. The embedded loop.Group gives
// Len, Loop, Next, Submit, OnShutdown, Shutdown, Wait, Done and Fail.
//
// In-flight work is the tasks the group started (Spawn, SpawnNext, and the
// connections of Serve): on Shutdown, after the OnShutdown funcs (which
// close the listeners), each loop runs until they have finished or the
// deadline passes. Then the ones left are canceled ([Task.Cancel]: they
// unwind through their own error paths, closing their fds) and run once
// more, and the loop is closed, which ends any task still waiting.
//
// A task that panics fails the group with its value: the panic goes no
// further than its task, as with [Run], and the group notices when it next
// looks over its tasks (at the latest when it shuts down).
type Group struct {
	*loop.Group
	members []member
}

// member is one loop's tasks; only that loop's goroutine touches it.
type member struct {
	tasks    []*Task
	reported bool // a panic has been passed to Fail
}

// NewGroup starts a group of n loops (n <= 0: runtime.GOMAXPROCS(0)).
func NewGroup(n int) (*Group, error) {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	g := &Group{members: make([]member, n)}
	lg, err := loop.StartGroup(loop.GroupConfig{
		Loops: n,
		Idle:  func(i int, l *loop.Loop) bool { return g.sweep(i) == 0 },
		Exit:  func(i int, l *loop.Loop) error { return g.cancelRest(i, l) },
	})
	if err != nil {
		return nil, err
	}
	g.Group = lg
	return g, nil
}

// Spawn starts a task running f on loop i; its first step runs during the
// loop's next iteration. It may be called from any goroutine (tasks of
// other loops included); f then belongs to loop i and must not be touched
// elsewhere. It fails once loop i has closed.
func (g *Group) Spawn(i int, f Frame) error {
	if f == nil {
		panic("stackless: Group.Spawn of a nil frame")
	}
	return g.Submit(i, func() { g.spawn(i, f) })
}

// SpawnNext is Spawn on the next loop in round-robin order; it returns the
// loop's index.
func (g *Group) SpawnNext(f Frame) (int, error) {
	i := g.Next()
	return i, g.Spawn(i, f)
}

// spawn starts and tracks a task on loop i, on its goroutine.
func (g *Group) spawn(i int, f Frame) *Task {
	m := &g.members[i]
	if len(m.tasks) == cap(m.tasks) {
		g.sweep(i)
	}
	t := Spawn(g.Loop(i), f)
	m.tasks = append(m.tasks, t)
	return t
}

// sweep drops loop i's finished tasks, fails the group on the first panic
// among them, and returns how many are left.
func (g *Group) sweep(i int) int {
	m := &g.members[i]
	live := m.tasks[:0]
	for _, t := range m.tasks {
		if !t.Done() {
			live = append(live, t)
			continue
		}
		if v, ok := t.Panicked(); ok && !m.reported {
			m.reported = true
			g.Fail(fmt.Errorf("stackless: a task of group loop %d panicked: %v", i, v))
		}
	}
	clear(m.tasks[len(live):])
	m.tasks = live
	return len(live)
}

// cancelRest cancels loop i's tasks that are still running and runs the loop
// once, so that they unwind.
func (g *Group) cancelRest(i int, l *loop.Loop) error {
	if g.sweep(i) == 0 {
		return nil
	}
	for _, t := range g.members[i].tasks {
		t.Cancel()
	}
	err := l.RunOnce()
	g.sweep(i)
	return err
}
