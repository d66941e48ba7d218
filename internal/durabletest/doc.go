// Package durabletest is the corpus of durable stackless functions
// (//co:stackless durable) that the differential tests snapshot and
// restore at every suspension point: the trace of an uninterrupted run must
// equal the trace of a run carried through bytes into a fresh loop.
//
// The functions record what they do with [Log]. Every suspension is
// preceded, in the same step, by a Log call, so that a test hooking Log
// reaches each suspension point in turn.
package durabletest

//go:generate go run ../../cmd/cogen
