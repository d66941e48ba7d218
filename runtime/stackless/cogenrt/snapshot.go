package cogenrt

import (
	"errors"
	"fmt"
	"reflect"
)

// What runtime/stackless's Snapshot and Restore call around the frames'
// header: the frames' states, the regions they reach (graph.go) and the
// padding (alloc.go).

// EncodeFrames writes the states of the frames dfs (outermost first;
// pcs[i] is the resume point of dfs[i]), innermost first, then the
// contents of the regions they reach and the padding. On an error it
// returns the index of the frame it concerns.
func (e *Encoder) EncodeFrames(dfs []DurableFrame, pcs []int) (int, error) {
	e.charge(mulCap(uint64(len(dfs)), 32))
	for _, df := range dfs {
		e.charge(frameCost(frameSize(df)))
	}
	e.beginFrames(dfs)
	mark, spent := len(e.buf), e.spent
	if i, err := e.states(dfs, pcs); err != nil {
		return i, err
	}
	if e.overlapping() { // pointers into other values: walk again, by region
		if err := e.merge(); err != nil {
			return 0, err
		}
		e.buf = e.buf[:mark]
		e.ptrs = nil
		e.spent = spent
		e.resetIDs()
		if i, err := e.states(dfs, pcs); err != nil {
			return i, err
		}
	}
	return 0, e.pad()
}

// states writes the frames' states, innermost first, then the contents of
// the regions they reach.
func (e *Encoder) states(dfs []DurableFrame, pcs []int) (int, error) {
	for i := len(dfs) - 1; i >= 0; i-- {
		e.callee = nil
		if i+1 < len(dfs) {
			e.callee = dfs[i+1]
		}
		e.frame = i
		e.Int(int64(pcs[i]))
		dfs[i].EncodeState(e)
		if e.err != nil {
			return i, e.err
		}
	}
	e.drain()
	return e.frame, e.err
}

// NewFrames charges what Restore allocates for a chain of n frames (its
// two slices), and checks n against the bytes left (a name's length and a
// fingerprint, 9 bytes at least, per frame).
func (d *Decoder) NewFrames(n int) error {
	if n > len(d.buf)/9 {
		return fmt.Errorf("%d frames in %d bytes", n, len(d.buf))
	}
	d.charge(mulCap(uint64(n), 32))
	return d.err
}

// NewFrame returns a new frame of the durable function registered as
// name (which must be), the next one outward of the chain being decoded,
// or nil with the error recorded if it would take Restore over its memory
// budget.
func (d *Decoder) NewFrame(name string) DurableFrame {
	registry.RLock()
	dt := registry.types[name]
	registry.RUnlock()
	if dt.newFrame == nil {
		d.Fail(fmt.Errorf("no durable function %s", name))
		return nil
	}
	if !d.charge(frameCost(dt.size)) {
		return nil
	}
	f := dt.newFrame()
	d.regions = append(d.regions, &dregion{v: reflect.ValueOf(f).Elem(), ptr: f})
	return f
}

// SetFrame records which frame (its index, outermost 0) is decoded next,
// which errors about the contents it reaches name.
func (d *Decoder) SetFrame(i int) { d.frame = i }

// Finish decodes the contents of the regions the frames reach and the
// padding, which must be exact. On an error it returns the index of the
// frame whose contents it concerns, or -1.
func (d *Decoder) Finish() (int, error) {
	if d.finish(); d.err != nil {
		return d.frame, d.err
	}
	if pad := d.Uint(); d.err != nil || pad != uint64(len(d.buf)) {
		return -1, fmt.Errorf("%d bytes after the last value, not the padding", len(d.buf))
	}
	for _, b := range d.buf {
		if b != 0 {
			return -1, errors.New("a padding byte is not zero")
		}
	}
	return -1, nil
}
