package cogenrt

import (
	"reflect"
	"sync"
)

// A DurableFrame is a frame that cogen generated for a //co:stackless
// durable function: it can write its state into a snapshot and read it
// back. It is also a stackless.Frame.
type DurableFrame interface {
	// Durable returns the frame type's registered name (the function's
	// package path and name) and its layout fingerprint.
	Durable() (name string, fingerprint uint64)
	// EncodeState writes the frame's fields (not its PC).
	EncodeState(e *Encoder)
	// DecodeState reads the fields EncodeState wrote and checks the PC,
	// which is set already, is one of the frame's resume points.
	DecodeState(d *Decoder)
}

type durableType struct {
	fingerprint uint64
	newFrame    func() DurableFrame
	size        uint64 // of the frame struct newFrame allocates
}

var registry struct {
	sync.RWMutex
	types map[string]durableType
}

// RegisterDurable records a durable frame type for stackless.Restore.
// Generated code calls it from an init function; registering one name
// twice with two fingerprints panics (two functions claim one name).
func RegisterDurable(name string, fingerprint uint64, newFrame func() DurableFrame) {
	registry.Lock()
	defer registry.Unlock()
	if registry.types == nil {
		registry.types = map[string]durableType{}
	}
	if old, ok := registry.types[name]; ok && old.fingerprint != fingerprint {
		panic("cogenrt: RegisterDurable of " + name + " twice with different fingerprints")
	}
	registry.types[name] = durableType{fingerprint, newFrame, frameSize(newFrame())}
}

// frameSize is the size of the struct f points to.
func frameSize(f DurableFrame) uint64 {
	if t := reflect.TypeOf(f); t.Kind() == reflect.Pointer {
		return uint64(t.Elem().Size())
	}
	return uint64(reflect.TypeOf(f).Size())
}

// frameCost is the charge of restoring a frame of the given size: its
// struct, its entries in Restore's two frame slices, its region.
func frameCost(size uint64) uint64 { return cost(size) + 32 + regionCost }

// LookupDurable returns the fingerprint and the constructor that
// [RegisterDurable] recorded under name, for stackless.Restore.
func LookupDurable(name string) (fingerprint uint64, newFrame func() DurableFrame, ok bool) {
	registry.RLock()
	defer registry.RUnlock()
	dt, ok := registry.types[name]
	return dt.fingerprint, dt.newFrame, ok
}
