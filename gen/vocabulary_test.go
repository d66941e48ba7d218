package gen

import (
	"reflect"
	"testing"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// Both handles implement the handle protocol, so an operation built on it
// compiles with either.
var (
	_ cosync.Handle = (*stackful.Co)(nil)
	_ cosync.Handle = (*stackless.Task)(nil)
)

// TestVocabulary checks that every method the generator keeps as a call on
// the handle, and every method of the handle protocol, exists with the same
// signature on the stackless task: the rewrite changes the receiver's type
// and nothing else.
func TestVocabulary(t *testing.T) {
	co := reflect.TypeFor[*stackful.Co]()
	task := reflect.TypeFor[*stackless.Task]()
	names := []string{}
	for name := range waitingMethods {
		names = append(names, name)
	}
	for name := range plainMethods {
		names = append(names, name)
	}
	names = append(names, protoMethods...)
	// The generator recognises the protocol by these names: they must be
	// exactly cosync.Handle's methods.
	h := reflect.TypeFor[cosync.Handle]()
	if h.NumMethod() != len(protoMethods) {
		t.Errorf("cosync.Handle has %d methods, the generator knows %d: %v", h.NumMethod(), len(protoMethods), protoMethods)
	}
	for _, name := range protoMethods {
		if _, ok := h.MethodByName(name); !ok {
			t.Errorf("cosync.Handle has no method %s", name)
		}
	}
	for _, name := range names {
		a, ok := co.MethodByName(name)
		if !ok {
			t.Errorf("*stackful.Co has no method %s", name)
			continue
		}
		b, ok := task.MethodByName(name)
		if !ok {
			t.Errorf("*stackless.Task has no method %s", name)
			continue
		}
		// Compare without the receiver.
		at, bt := a.Type, b.Type
		if at.NumIn() != bt.NumIn() || at.NumOut() != bt.NumOut() || at.IsVariadic() != bt.IsVariadic() {
			t.Errorf("%s: %v vs %v", name, at, bt)
			continue
		}
		for i := 1; i < at.NumIn(); i++ {
			if at.In(i) != bt.In(i) {
				t.Errorf("%s: parameter %d: %v vs %v", name, i, at.In(i), bt.In(i))
			}
		}
		for i := 0; i < at.NumOut(); i++ {
			if at.Out(i) != bt.Out(i) {
				t.Errorf("%s: result %d: %v vs %v", name, i, at.Out(i), bt.Out(i))
			}
		}
	}
}
