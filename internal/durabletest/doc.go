// Package durabletest is the corpus of durable stackless functions
// (//co:stackless durable) that the differential tests snapshot and
// restore at every suspension point: the trace of an uninterrupted run must
// equal the trace of a run carried through bytes into a fresh loop.
//
// The functions record what they do with [Log]. Every suspension is
// preceded, in the same step, by a Log call, so that a test hooking Log
// reaches each suspension point in turn. The frame shapes that
// internal/bench measures by the million (shapes.go) do not log: they wait
// once in Yield and report their result to [Finished]. Search's values are
// carried by codecs, imported from package enc and declared here. Bytes
// holds byte-sized slices and arrays of every kind, which travel as their
// bytes; Alias writes through a pointer into a slice after a restore.
// aliasing.go and zones.go hold the reproducers of issue 35: pointers
// into locals and out-parameters, shared maps and slices, cycles, a deep
// list, and times in zones.
package durabletest

//go:generate go run ../../cmd/cogen
