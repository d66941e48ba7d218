package cogenrt

import (
	"iter"
	"sync"
)

// Range runs a range-over-func loop whose body suspends (generated code
// only). The iterator function cannot call the body, which returns to the
// loop between its steps, so it runs as a pull iterator ([iter.Pull2]) and
// the frame calls [Range.Next] at the top of each iteration. Range keeps
// the state the gc compiler keeps for each such loop (cmd/compile's
// rangefunc rewrite) and panics where compiled code panics, with the
// runtime's own values:
//
//   - the yield function the iterator sees panics when it is called after
//     it returned false ("range function continued iteration after
//     function for loop body returned false"), while the body runs or
//     after the body panicked ("... after loop body panic"), or after the
//     iterator function returned ("... after whole loop exit");
//   - an iterator function that returns normally after its yield panicked
//     (it recovered the panic) panics with "range function recovered a
//     loop body panic and did not resume panicking";
//   - a panic of the body unwinds the iterator function: [Range.Unwind]
//     makes the pending yield call panic with it, so the iterator's
//     deferred calls see it, and yield never returns.
//
// A frame calls Next at the top of each iteration, Stop when the body
// leaves the loop (break, return, goto, a labeled branch to an outer
// statement) and after the last iteration, and Unwind from its
// [Unwinder] when a panic leaves the frame.
type Range[K, V any] struct {
	next      func() (K, V, bool)
	stop      func()
	state     rangeState
	unwinding bool // Unwind resumed the iterator: yield panics with panicVal
	panicVal  any
}

// rangeState is abi.RF_State, the state of a loop as gc tracks it.
type rangeState uint8

const (
	rangeDone         rangeState = iota // the body left the loop (yield returned false)
	rangeReady                          // yield may be called: the body is not running
	rangePanic                          // the body is running, or panicked
	rangeExhausted                      // the iterator function returned
	rangeMissingPanic                   // reports a body panic the iterator recovered
)

// Pull0 starts a loop over an iterator whose yield has no parameters.
func Pull0(seq func(yield func() bool)) *Range[struct{}, struct{}] {
	r := new(Range[struct{}, struct{}])
	r.start(func(yield func(struct{}, struct{}) bool) {
		seq(func() bool { return r.yield(yield, struct{}{}, struct{}{}) })
	})
	return r
}

// Pull1 starts a loop over an iterator whose yield has one parameter.
func Pull1[K any](seq func(yield func(K) bool)) *Range[K, struct{}] {
	r := new(Range[K, struct{}])
	r.start(func(yield func(K, struct{}) bool) {
		seq(func(k K) bool { return r.yield(yield, k, struct{}{}) })
	})
	return r
}

// Pull2 starts a loop over an iterator whose yield has two parameters.
func Pull2[K, V any](seq func(yield func(K, V) bool)) *Range[K, V] {
	r := new(Range[K, V])
	r.start(func(yield func(K, V) bool) {
		seq(func(k K, v V) bool { return r.yield(yield, k, v) })
	})
	return r
}

func (r *Range[K, V]) start(seq func(yield func(K, V) bool)) {
	r.state = rangeReady
	r.next, r.stop = iter.Pull2(func(yield func(K, V) bool) {
		seq(yield)
		// What compiled code checks after the iterator function returns.
		if r.state == rangePanic {
			panic(rangeError(rangeMissingPanic))
		}
		r.state = rangeExhausted
	})
}

// yield is the yield function the iterator sees; pull is iter.Pull2's.
func (r *Range[K, V]) yield(pull func(K, V) bool, k K, v V) bool {
	if s := r.state; s != rangeReady {
		r.state = rangePanic
		panic(rangeError(s))
	}
	r.state = rangePanic
	if pull(k, v) {
		return true // Next: the body ran to its end
	}
	if r.unwinding {
		panic(r.panicVal) // the body panicked
	}
	return false // Stop: the body left the loop
}

// Next resumes the iterator after the body ran to its end (its yield
// returns true) or starts it, and returns the next values, or false when
// the iterator function has returned. A panic of the iterator function
// goes on from Next.
func (r *Range[K, V]) Next() (K, V, bool) {
	if r.state == rangePanic {
		r.state = rangeReady
	}
	return r.next()
}

// Stop ends the loop: if the body is leaving it, the iterator's yield
// returns false and the iterator function runs to its end (a panic of it
// goes on from Stop); after the last iteration it does nothing.
func (r *Range[K, V]) Stop() {
	if r.state == rangePanic {
		r.state = rangeDone
	}
	r.stop()
}

// Unwind unwinds the iterator with the panic p of the body, if the body is
// running: its pending yield panics with p, which goes through the
// iterator function's deferred calls. It returns the panic that goes on
// from the loop: p, or the one the iterator raised instead (a recovered
// panic that is not resumed is Go's runtime error). A nil Range (a loop
// not reached) returns p.
func (r *Range[K, V]) Unwind(p any) (q any) {
	if r == nil || r.state != rangePanic {
		return p // not started, or its iterator function has ended
	}
	r.unwinding, r.panicVal = true, p
	returned := false
	defer func() {
		if !returned {
			q = recover()
		}
	}()
	r.stop()
	returned = true
	return p // the iterator function had ended already
}

// rangeErrors holds the runtime's own panic values of misbehaving
// iterators, indexed by rangeState, so that both models panic with the
// same values (same type, same message, equal under ==). Each is taken
// from a compiled loop that misbehaves in that way.
var rangeErrors = sync.OnceValue(func() (errs [rangeMissingPanic + 1]any) {
	catch := func(f func()) (p any) {
		defer func() { p = recover() }()
		f()
		return nil
	}
	errs[rangeDone] = catch(func() {
		for range func(yield func() bool) { yield(); yield() } {
			break
		}
	})
	errs[rangePanic] = catch(func() {
		seq := func(yield func() bool) {
			defer func() { recover(); yield() }()
			yield()
		}
		for range seq {
			panic("body")
		}
	})
	errs[rangeExhausted] = catch(func() {
		var keep func() bool
		for range func(yield func() bool) { keep = yield } {
		}
		keep()
	})
	errs[rangeMissingPanic] = catch(func() {
		seq := func(yield func() bool) {
			defer func() { recover() }()
			yield()
		}
		for range seq {
			panic("body")
		}
	})
	for s, msg := range rangeMessages {
		if errs[s] == nil { // checks compiled out (-gcflags=-d=rangefunccheck=0)
			errs[s] = rangeMessageError(msg)
		}
	}
	return errs
})

var rangeMessages = map[rangeState]string{
	rangeDone:         "range function continued iteration after function for loop body returned false",
	rangePanic:        "range function continued iteration after loop body panic",
	rangeExhausted:    "range function continued iteration after whole loop exit",
	rangeMissingPanic: "range function recovered a loop body panic and did not resume panicking",
}

// rangeError returns the panic value for a loop in state s.
func rangeError(s rangeState) any { return rangeErrors()[s] }

// rangeMessageError is a runtime.Error with the runtime's message, used
// only if the compiler's checks are off.
type rangeMessageError string

func (e rangeMessageError) Error() string { return "runtime error: " + string(e) }

// RuntimeError marks rangeMessageError as a runtime.Error.
func (rangeMessageError) RuntimeError() {}
