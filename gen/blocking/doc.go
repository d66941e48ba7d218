// Package blocking defines an Analyzer that reports calls and statements
// that wait in Go's scheduler in coroutine code.
//
// # Analyzer blocking
//
// blocking: report waits in Go's scheduler in coroutine code
//
// A coroutine that waits in Go's scheduler instead of on its loop freezes
// every coroutine of its env, and hangs it for good when what it waits for
// is held by a suspended coroutine of the same env. The analyzer reports
// such waits in coroutine code: the bodies of //co:stackless functions and
// of every function, method or function literal with a *stackful.Co
// parameter (a literal inside one is not its code unless it takes the
// handle too: it may run on a goroutine or an offload worker). It reports
//
//   - time.Sleep, and <-time.After(d) as a statement: fixed to co.Sleep(d);
//   - sync.WaitGroup.Wait, os/exec's Cmd.Run, Cmd.Wait, Cmd.Output and
//     Cmd.CombinedOutput, and blocking file I/O (os.ReadFile, os.WriteFile,
//     os.ReadDir, os.Open, os.Create, os.OpenFile, os.Remove, os.RemoveAll,
//     os.Rename, os.Mkdir, os.MkdirAll, os.Stat, os.Lstat, and *os.File's
//     Read, Write, ReadAt, WriteAt, ReadFrom, WriteString, Sync and
//     ReadDir): fixed to co.Offload(wg.Wait) or co.Offload(func() { ... })
//     where the call is a statement or the right side of an assignment
//     (x, err := os.ReadFile(p) becomes var x []byte; var err error;
//     co.Offload(func() { x, err = os.ReadFile(p) })), in functions that
//     are not //co:stackless; cosync.WaitGroup is the better answer for a
//     WaitGroup where the code is yours;
//   - sync.Mutex and RWMutex Lock/RLock held across a suspension (a later
//     statement of the same block, before the Unlock, that suspends; a lock
//     held for a moment is harmless): use cosync.Mutex or cosync.RWMutex;
//   - sync.Cond.Wait: use stackful.Cond or a cosync primitive;
//   - a send or receive on a Go channel, range over one, and a select
//     without a default: use cosync.Chan and cosync.Select (a send on a
//     local variable made here as make(chan T, n) with a constant n > 0, the
//     idiom of handing a result out, is not reported);
//   - net.Dial, net.DialTimeout, net.Listen: fixed to conet's functions of
//     the same names (importing conet) in functions that are not
//     //co:stackless; net.Dialer's Dial and DialContext: use conet.Dialer;
//     net/http's Get, Head, Post, PostForm, x/sync's
//     semaphore.Weighted.Acquire and errgroup.Group.Wait: the message names
//     the replacement.
//
// A fix is offered only where cogen accepts its result: in a //co:stackless
// function only co.Sleep, since the handle's Offload has no stackless
// counterpart and conet's calls wait only in a stackful coroutine; there
// the message says what to do instead (cosync, or moving the call into a
// function that is not marked and runs it with co.Offload).
//
// The fixes are go/analysis SuggestedFixes; go fix applies them with cogen
// as its fix tool (-diff shows them first):
//
//	go fix -fixtool=$(go tool -n cogen) ./...
//
// A fix that changes the lines of a file with //co:stackless functions
// makes its generated file stale (its //line directives point at the old
// lines): the fix's message says to run go generate, and go vet with cogen
// as its tool reports the stale file until one does. A fix that replaces
// the last use of package time leaves its import to goimports. (gopls runs
// only its own analyzers, so an editor shows these reports through go vet,
// not as you type.) A line that blocks on purpose (a test of stall
// detection) is marked with a //co:blocking comment on it or on the line
// above, ideally with the reason:
//
//	mu.Lock() //co:blocking the trap this test sets
//
// The runtime packages' own files implement the waiting and are not checked
// (their tests are). These reports are go vet's: cogen's generation does
// not stop for them, as the code compiles and runs as written in both
// models.
package blocking
