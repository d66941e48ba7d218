//go:build !cogen_coroswitch

package stackful

import "iter"

// The default switch: every coroutine with a goroutine of its own is an
// iter.Pull, whose next enters it and whose yield leaves it. The build tag
// cogen_coroswitch replaces this file with switch_coro.go.

// RawSwitch reports whether this build switches with runtime.coroswitch
// directly (build tag cogen_coroswitch, see the package doc): false, it
// switches through iter.Pull.
const RawSwitch = false

// coSwitch is what the raw switch keeps in a Co: nothing here.
type coSwitch struct{}

// enter and leave are the raw switch's; never called in this build, where
// raw is false.
func (*coSwitch) enter() {}
func (*coSwitch) leave() {}

// startOwn starts co on a goroutine of its own; Resume has pushed it.
func (co *Co) startOwn() {
	co.next, _ = iter.Pull(co.env.body) // Env.Close unwinds through next, not stop
	co.next()
}

// errGoexit marks a coroutine ended by runtime.Goexit for raise; this
// build never uses it, as iter.Pull's next calls Goexit itself.
var errGoexit = new(struct{ goexit int })

// raw reports whether co switches through a coro of its own: never here.
func (*coSwitch) raw() bool { return false }
