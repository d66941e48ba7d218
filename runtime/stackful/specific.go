package stackful

import "sync/atomic"

// A Key names one coroutine-specific value of type T: libco's
// CO_ROUTINE_SPECIFIC with co_getspecific/co_setspecific, typed. Every
// coroutine, the main coroutine included, has its own value for each key,
// the zero T until set. Values are dropped when the coroutine is released or
// reset. Create keys with [NewKey], typically as package variables; the zero
// Key is invalid.
//
// Like the rest of a coroutine's state, a value must be used only by the
// goroutine running the coroutine's env.
type Key[T any] struct {
	id int32
}

var keyCount atomic.Int32

// NewKey returns a new key. Each key takes a slot in the coroutines that
// set it, so make keys once, not per coroutine.
func NewKey[T any]() Key[T] {
	return Key[T]{id: keyCount.Add(1)}
}

// Get returns co's value for k, or the zero T if none was set.
func (k Key[T]) Get(co *Co) T {
	v, _ := k.Lookup(co)
	return v
}

// Lookup returns co's value for k and whether one was set.
func (k Key[T]) Lookup(co *Co) (T, bool) {
	k.check(co)
	if x := co.more(); x != nil && int(k.id) < len(x.spec) {
		if v, ok := x.spec[k.id].(specValue[T]); ok {
			return v.v, true
		}
	}
	var zero T
	return zero, false
}

// Set sets co's value for k.
func (k Key[T]) Set(co *Co, v T) {
	k.check(co)
	x := co.ext()
	if int(k.id) >= len(x.spec) {
		x.spec = append(x.spec, make([]any, int(k.id)+1-len(x.spec))...)
	}
	x.spec[k.id] = specValue[T]{v}
}

// Delete removes co's value for k.
func (k Key[T]) Delete(co *Co) {
	k.check(co)
	if x := co.more(); x != nil && int(k.id) < len(x.spec) {
		x.spec[k.id] = nil
	}
}

func (k Key[T]) check(co *Co) {
	if k.id == 0 {
		panic("stackful: Key used without NewKey")
	}
	if co == nil {
		nilCo("a Key's method") // the coroutine argument: Key[T].Get(Self()) before any env
	}
}

// specValue boxes a value so that a nil interface value still counts as set.
type specValue[T any] struct{ v T }
