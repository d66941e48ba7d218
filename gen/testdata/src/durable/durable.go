// Package durable holds the diagnostics of //co:stackless durable
// functions: every value live across a suspension must be encodable.
package durable

import (
	"iter"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type state struct {
	n    int
	tags map[string][]float32
	next *state
	at   time.Time
}

// fine has only encodable fields and durable callees.
//
//co:stackless durable
func fine(co *stackful.Co, s *state, xs [3]uint8) int {
	co.Gosched()
	s.n++
	co.Sleep(time.Millisecond)
	return callee(co, s.n) + int(xs[0])
}

//co:stackless durable
func callee(co *stackful.Co, x int) int {
	co.Gosched()
	return x
}

//co:stackless
func plainCallee(co *stackful.Co) {
	co.Gosched()
}

//co:stackless durable
func channels(co *stackful.Co) int {
	ch := make(chan int, 1) // want `durable function channels: ch \(chan int\) lives in the frame, and a channel \(chan int\) cannot be carried in a snapshot`
	co.Gosched()
	return len(ch)
}

//co:stackless durable
func funcs(co *stackful.Co, f func() int) int { // want `durable function funcs: f \(func\(\) int\) lives in the frame, and a func \(func\(\) int\) cannot be carried in a snapshot \(unless a codec carries it: declare a package-level variable of type stackless.Codec\[func\(\) int\] to carry it\)`
	co.Gosched()
	return f()
}

//co:stackless durable
func errs(co *stackful.Co) error { // want `durable function errs: a result \(error\) lives in the frame, and an interface \(error\) cannot be encoded: its dynamic type is not known \(declare a package-level variable of type stackless.Codec\[error\] to carry it\)`
	err := os.ErrClosed // want `durable function errs: err \(error\) lives in the frame`
	co.Gosched()
	return err
}

//co:stackless durable
func pointers(co *stackful.Co, p unsafe.Pointer) uintptr { // want `durable function pointers: p \(unsafe.Pointer\) lives in the frame, and an unsafe.Pointer cannot be encoded`
	co.Gosched()
	return uintptr(p)
}

//co:stackless durable
func files(co *stackful.Co, f *os.File) string { // want `durable function files: f \(\*os.File\) lives in the frame, and os.File has unexported fields of another package \(field file\) and does not implement encoding.BinaryMarshaler and BinaryUnmarshaler: declare a package-level variable of type stackless.Codec\[os.File\] to carry it`
	co.Gosched()
	return f.Name()
}

//co:stackless durable
func mutexes(co *stackful.Co, mu *sync.Mutex) { // want `durable function mutexes: mu \(\*sync.Mutex\) lives in the frame, and sync.Mutex has unexported fields`
	co.Gosched()
	mu.Unlock()
}

//co:stackless durable
func callsPlain(co *stackful.Co) {
	plainCallee(co) // want `durable function callsPlain: it calls plainCallee, which is not durable`
}

//co:stackless durable
func defers(co *stackful.Co) {
	defer println("x") // want `durable function defers: a defer statement`
	co.Gosched()
}

//co:stackless durable
func closures(co *stackful.Co) {
	f := func() { co.Gosched() } // want `durable function closures: a function literal suspends`
	f()
}

//co:stackless durable
func ranges(co *stackful.Co, seq iter.Seq[int]) { // want `durable function ranges: a range-over-func loop suspends` `durable function ranges: seq \(iter.Seq\[int\]\) lives in the frame`
	for x := range seq {
		println(x)
		co.Gosched()
	}
}

//co:stackless durable
func generic[T any](co *stackful.Co, x T) T { // want `durable function generic: a generic function cannot be durable`
	co.Gosched()
	return x
}

var inbox cosync.Chan[int]

var boxes = []*cosync.Chan[int]{&inbox}

// waitsCosync waits on cosync channels reachable from package-level
// variables: each wait is reported, naming the call (not the temporaries
// holding the channel or the value sent).
//
//co:stackless durable
func waitsCosync(co *stackful.Co) int {
	v, _ := inbox.Recv(co)    // want `durable function waitsCosync: inbox.Recv\(co\) waits on a cosync object \(a protocol call\), which a snapshot cannot carry`
	w, _ := boxes[0].Recv(co) // want `boxes\[0\].Recv\(co\) waits on a cosync object`
	_ = inbox.Send(co, 2)     // want `inbox.Send\(co, 2\) waits on a cosync object`
	return v + w
}
