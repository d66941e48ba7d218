//go:build unix

package cohttp

import (
	"unsafe"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"github.com/cogen-go/cogen/runtime/stackless/cogenrt"
)

// A WaitHandler answers requests and may wait while it does: it is a
// handler written once as a //co:stackless function taking the coroutine
// handle, so it can call the handle's waiting methods (Sleep, Read...),
// runtime/cosync's primitives, and coroutine-native clients; the server
// runs that function on the connection's stackful coroutine, and the frame
// cogen generated from it as a child of the connection's stackless task.
//
//	//co:stackless
//	func lookup(co *stackful.Co, w *cohttp.ResponseWriter, r *cohttp.Request) {
//		co.Sleep(time.Millisecond) // or a database round trip
//		w.WriteString("found\n")
//	}
//
//	var lookupHandler = cohttp.Waiting(lookup, newLookupFrame)
//
// A plain [Handler] (the router) hands a request to it with
// [ResponseWriter.Wait]; [WaitHandler.Handler] hands every request.
//
// While it waits, the loop serves the other connections; the connection's
// later requests (pipelined) wait their turn, so answers keep their order.
// The answers a pipelined batch had before it are written first, so a
// batch with a waiting request costs a write more than one without.
type WaitHandler struct {
	stackful  func(co *stackful.Co, w *ResponseWriter, r *Request)
	stackless func(w *ResponseWriter, r *Request) stackless.Frame
}

// Waiting returns the WaitHandler of fn, a //co:stackless function, and
// frame, the constructor of its frame that cogen generated (newFnFrame for
// fn).
func Waiting[F stackless.Frame](fn func(co *stackful.Co, w *ResponseWriter, r *Request), frame func(w *ResponseWriter, r *Request) F) *WaitHandler {
	if fn == nil || frame == nil {
		panic("cohttp: Waiting with a nil function")
	}
	return &WaitHandler{stackful: fn, stackless: func(w *ResponseWriter, r *Request) stackless.Frame { return frame(w, r) }}
}

// Handler returns a Handler that hands every request to h.
func (h *WaitHandler) Handler() Handler {
	return func(w *ResponseWriter, r *Request) { w.Wait(h) }
}

// Wait hands the request to h: once the calling handler has returned, the
// server runs h, which may wait, with the same w and r (what the caller
// wrote stays), and answers when h returns. A panic in h is answered 500,
// as one in a plain handler.
func (w *ResponseWriter) Wait(h *WaitHandler) {
	if h == nil {
		panic("cohttp: Wait with a nil WaitHandler")
	}
	w.waiting = h
}

// connTask is the stackless connection task's outermost frame: the frame
// cogen generated from serveConn, and between its runs the WaitHandlers it
// returns for, each a child frame; then the close and the server's
// accounting. It is connMain's twin.
type connTask struct {
	stackless.Base
	c     *conn
	serve *serveConnFrame
	call  waitingCall
}

func newConnTask(c *conn) *connTask {
	return &connTask{c: c, serve: newServeConnFrame(c)}
}

func (f *connTask) Step(t *stackless.Task) stackless.Status {
	switch f.PC {
	case 0: // serve until the connection ends or a WaitHandler is to run
		f.PC = 1
		return t.Call(f.serve)
	case 1:
		if f.serve.Result() == nil && f.c.phase == phHandler {
			*f.serve = *newServeConnFrame(f.c)
			f.call = waitingCall{c: f.c}
			f.PC = 0
			return t.Call(&f.call)
		}
		t.Close(f.c.fd)
		f.c.s.ended(f.c)
		return stackless.Done
	}
	panic("cohttp: connTask: invalid resume point")
}

// waitingCall calls the connection's WaitHandler's frame as a child and
// turns a panic in it into a 500: its deferred call recovers, and the
// task goes on with connTask.
type waitingCall struct {
	stackless.Base
	cogenrt.Defers
	c *conn
}

func (f *waitingCall) Step(t *stackless.Task) stackless.Status {
	if f.PC == 0 {
		f.PC = 1
		c := f.c
		if c.s.lim.SlowHandler >= 0 {
			c.task = t
			c.waitKey = uintptr(unsafe.Pointer(t)) // see conn.waitKey
			c.s.guard.enterWaiting(c.s, c)
		}
		f.Defer(c.recoverCall())
		w := &c.w
		return t.Call(w.waiting.stackless(w, &c.req))
	}
	f.RunDefers()
	return stackless.Done
}

// recoverCall returns the connection's deferred call that recovers a
// panic of its WaitHandler (made once per connection).
func (c *conn) recoverCall() func(next func()) {
	if c.recoverer == nil {
		c.recoverer = func(next func()) {
			defer c.recovered()
			next()
		}
	}
	return c.recoverer
}

// recovered ends the WaitHandler's call: as it returns, or as its panic
// unwinds the task.
func (c *conn) recovered() {
	if c.task != nil {
		c.s.guard.exitWaiting(c)
	}
	if p := recover(); p != nil {
		c.w.panicked = true
	}
}
