package stackful

import (
	"runtime"
	"slices"

	"github.com/cogen-go/cogen/runtime/loop"
)

// A Group is N envs, one per loop of a [loop.Group]: each env's main
// coroutine is its loop's goroutine, locked to an OS thread, so N envs run
// on N cores, as libco runs one env per thread. The embedded loop.Group
// gives Len, Loop, Next, Submit, OnShutdown, Shutdown, Wait, Done and Fail.
//
// In-flight work is the env's live coroutines: on Shutdown, after the
// OnShutdown funcs (which close the listeners), each env runs until it has
// none left or the deadline passes. Then the waits of the coroutines still
// live are canceled ([loop.Canceled]: the operation returns
// [loop.ErrCanceled]), so that they can close their fds on their own error
// paths, the env runs them once more, and [Env.Close] unwinds whatever is
// left.
//
// A panic in a coroutine leaves its env's Run, which makes the loop fail and
// the whole group shut down with the panic as its error.
type Group struct {
	*loop.Group
	envs []*Env
}

// NewGroup starts a group of n envs (n <= 0: runtime.GOMAXPROCS(0)), each
// with a loop of its own.
func NewGroup(n int) (*Group, error) {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	g := &Group{envs: make([]*Env, n)}
	lg, err := loop.StartGroup(loop.GroupConfig{
		Loops: n,
		Init:  func(i int, l *loop.Loop) error { g.envs[i] = NewEnvOn(l); return nil },
		Idle:  func(i int, l *loop.Loop) bool { return g.envs[i].Live() == 0 },
		Exit:  func(i int, l *loop.Loop) error { return g.envs[i].closeRest() },
	})
	if err != nil {
		return nil, err
	}
	g.Group = lg
	return g, nil
}

// Env returns env i. Only its loop's goroutine may use it: from a coroutine
// of that env, or a func submitted to loop i.
func (g *Group) Env(i int) *Env { return g.envs[i] }

// Spawn creates a coroutine running fn on env i and resumes it there: it
// runs on loop i's goroutine during the loop's next iteration. It may be
// called from any goroutine, coroutines of other envs included. It fails
// once loop i has closed; fn is dropped if env i is closing by the time it
// would start. It is stackless.Group.Spawn's twin.
func (g *Group) Spawn(i int, fn func(co *Co)) error {
	if fn == nil {
		panic("stackful: Group.Spawn with a nil function")
	}
	return g.Submit(i, func() {
		e := g.envs[i]
		if e.closing || e.closed {
			return
		}
		e.Create(fn, nil).Resume()
	})
}

// SpawnNext is Spawn on the next env in round-robin order; it returns the
// env's index. It is stackless.Group.SpawnNext's twin.
func (g *Group) SpawnNext(fn func(co *Co)) (int, error) {
	i := g.Next()
	return i, g.Spawn(i, fn)
}

// Go is Spawn.
//
// Deprecated: use [Group.Spawn], the verb both models share. Go will be
// removed in the release after next.
func (g *Group) Go(i int, fn func(co *Co)) error { return g.Spawn(i, fn) }

// GoNext is SpawnNext.
//
// Deprecated: use [Group.SpawnNext]. GoNext will be removed in the release
// after next.
func (g *Group) GoNext(fn func(co *Co)) (int, error) { return g.SpawnNext(fn) }

// closeRest ends what is still live in e after the shutdown deadline: it
// cancels the coroutines' waits, runs the loop once so that they see the
// error, and closes e.
func (e *Env) closeRest() error {
	if len(e.live) > 0 {
		for _, co := range slices.Clone(e.live) {
			if co.w.Armed() {
				co.w.Cancel()
			}
		}
		if err := e.loop.RunOnce(); err != nil {
			return err
		}
	}
	return e.Close()
}
