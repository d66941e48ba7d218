// Package cosync is one synchronization vocabulary for both coroutine
// models: channels and the waiting primitives that coroutines of a loop use
// to coordinate, with the same source for a stackful coroutine
// (*stackful.Co) and a stackless task (*stackless.Task). It can be thought
// of as Go's channels and package sync for a single event loop, where
// blocking suspends the coroutine on the loop instead of parking a
// goroutine in Go's scheduler (which would freeze the whole env).
//
// # Operations take the handle
//
// Every operation that may wait is a method of the primitive taking the
// coroutine handle as its first argument:
//
//	err := ch.Send(co, v)
//	v, ok := ch.Recv(co)
//
// co is a [Handle]: both *stackful.Co and *stackless.Task implement it, so
// a function written on *stackful.Co and marked //co:stackless is rewritten
// by cogen into a stackless frame with the same calls: the generator treats
// any call that passes the handle to a Handle parameter as a suspension
// point. Operations that never wait (TrySend, TryRecv, Close) take no
// handle and may be called by any code on the loop's goroutine (a timer
// callback, a submitted func, the loop's stop function).
//
// # The handle protocol
//
// A waiting operation is built on four methods of the handle, and users may
// build their own the same way (a plain function taking a Handle and
// forwarding to operations is one too, as long as calling it again after a
// stackless suspension is harmless):
//
//	r := h.Resumed()   // NotWoken on a first call; a stackless retry: the wake-up it consumes
//	...                // a retry: finish the operation recorded in *h.OpSlot()
//	...                // fast path: complete at once and return
//	arm h.Waiter() and put a record of the operation where a waker finds it
//	r, again := h.Suspend()
//	if !again { return zero values } // stackless: the frame suspends, the call is made again
//	finish with r                    // stackful: the wait is over
//
// A waker completes a record (hands the value over, grants the lock) before
// it wakes the owner, so an operation never waits twice and a wake-up is
// never spurious: a stackless operation suspends at most once per call.
//
// This package's own operations begin with Begin, which is Resumed, Waiter
// and OpSlot in one dynamic call (the slot is nil until the handle first
// blocks on a primitive): an operation that completes at once makes one
// call through the interface, one that blocks two (Begin, Suspend) and a
// stackless retry one more. That took a stackless channel ping-pong from
// 97-114 to 78-80 ns of CPU per round trip (0.33-0.40x to 0.28-0.29x Go's
// channels in the same runs) and a stackful one from 370-379 to 342-348.
//
// # Hand-off
//
// A send to a blocked receiver and a receive from a blocked sender complete
// the transfer in place, as Go's channels write into the waiting
// goroutine: the value goes into the waiter's record, the record is done,
// and the waiter has nothing left to do but return it. The waiter is then
// woken with [loop.Waiter.WakeNext], Go's runnext: it runs right after the
// coroutine that woke it, ahead of the loop's ready queue, so a pair taking
// turns runs turn after turn within one round of the loop, on values still
// in the cache, with no poll between them. A stackful coroutine resumed by
// the loop goes further: when it waits after a hand-off, it switches
// straight to the coroutine it woke (one runtime coroutine switch, where a
// yield to the main coroutine and a resume from the loop were two), and
// when that one hands a value back and waits, it switches straight back
// (see runtime/stackful's "Switching").
//
// Fairness is the loop's: at most 64 run-next runs follow one another; then
// a hand-off queues its waiter at the back of the ready queue like any
// wake-up, and everything queued before it runs first (a coroutine that
// moved to the back of the queue runs after at most 32 round trips of a
// pair, TestHandOffFairness). Only the order in which woken coroutines run
// changes: which value goes to which waiter is the queues' FIFO order, as
// before, and Close, timeouts, cancels and the waits of package sync's
// counterparts wake in queue order.
//
// # Semantics
//
// [Chan] has Go's channel semantics exactly: unbuffered or buffered; FIFO
// among blocked senders and among blocked receivers; a send to a blocked
// receiver hands the value over directly; a receive from a closed channel
// drains the buffer, then returns the zero value and false; a send on a
// closed channel panics, also for a sender blocked when it closes; Close
// wakes every waiter; a nil *Chan blocks forever (until a timeout, a
// cancel or the loop's close) and closing it panics.
//
// Timeouts follow one convention everywhere: a negative timeout waits
// forever ([Forever]), 0 does not wait (an immediate try) and a positive
// one gives up with [ErrTimeout] that long after the call.
//
// A stackless task's operation returns [ErrCanceled] at once once the task
// is canceled (Recv returns the zero value and false), and an operation
// whose loop closes returns [ErrClosed]; Env.Close unwinds a stackful
// coroutine blocked in an operation. Either way the operation's record is
// left dead: wakers skip it and nothing is delivered to it. A value handed
// over before a cancel is still returned.
//
// # Loops and goroutines
//
// A primitive lives on one loop: the loop of the first coroutine that waits
// on it, or the one it was created for ([NewChanOn]) or bound to (Bind).
// Its state has no locks, so its operations run on that loop's goroutine:
//
//   - A coroutine of that loop calls every operation directly.
//   - A coroutine of another loop calls the waiting operations (Send, Recv,
//     Select, Lock, Wait, Acquire, Begin) directly too: the operation runs
//     on the primitive's loop while the coroutine waits on its own, and a
//     cancel or its loop's close cancels it there without losing a value
//     already handed over. The operations that take no handle (Close,
//     TrySend, TryRecv, Unlock, Add, Done, Release) it runs through [Call]:
//     cosync.Call(co, ch.Loop(), ch.Close).
//   - A goroutine outside every loop uses the Go* methods (GoSend, GoRecv,
//     GoClose, GoLock, GoUnlock, GoAdd, GoDone, GoWait, GoAcquire,
//     GoRelease), which submit the operation to the loop ([loop.Loop.Submit])
//     and block the goroutine until it is done or its context ends; the
//     loop must be running.
//
// A stackful coroutine unwound by Env.Close while its operation runs on
// another loop leaves that operation to finish there: a value it then
// receives is lost with the coroutine.
//
// A primitive shared beyond its loop must be bound before it is shared
// (NewChanOn, Bind), since binding on first use is not synchronized. A
// bridged operation allocates its state, a closure and (for a goroutine) a
// Go channel, and costs a Submit, an eventfd wake-up of each loop involved
// and a switch of goroutines: microseconds, not nanoseconds.
//
// # Costs
//
// An operation that completes at once costs a few interface calls on the
// handle and no allocation. A blocked operation takes a record from the
// primitive's pool (allocated on first use and reused after), arms the
// handle's waiter with no source but its optional deadline, and is woken
// through the loop's run-next slot (a channel's hand-off) or its ready
// queue: no allocation in steady state. A
// coroutine blocked on a primitive costs its record (80 bytes for an int
// channel) beyond what it costs suspended anyway, plus, the first time, the
// small out-of-line state that holds the handle's operation slot (48 bytes
// for a stackless task, which also holds a nested call's callers; 24 for a
// stackful coroutine): a stackless task blocked in Recv holds about 285
// bytes in all, 130 more than one suspended in Yield
// (TestMemoryBlockedOnChan).
//
// A round trip between a pair in either model costs no allocation and no
// poll (BenchmarkChanPingPong, BenchmarkChanPingPongOnePair,
// BenchmarkChanFanOut); the figures against Go's channels are in
// docs/benchmarks.md.
package cosync
