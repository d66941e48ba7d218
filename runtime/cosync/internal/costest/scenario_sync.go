package costest

import (
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Selector selects n times between receiving from a and from b, with a
// timeout d, logging what fired: "<name> a <v> <ok>", "<name> b <v> <ok>",
// "<name> timeout" or "<name> none" (canceled, loop closed).
//
//co:stackless
func Selector(co *stackful.Co, a, b *cosync.Chan[int], n int, d time.Duration, name string, log *Log) {
	for i := 0; i < n; i++ {
		var v int
		var ok bool
		switch cosync.Select(co, a.RecvCase(&v, &ok), b.RecvCase(&v, &ok), cosync.After(d)) {
		case 0:
			log.Add("%s a %d %v", name, v, ok)
		case 1:
			log.Add("%s b %d %v", name, v, ok)
		case 2:
			log.Add("%s timeout", name)
		default:
			log.Add("%s none", name)
			return
		}
	}
}

// SelectSender sends v on a or on b, whichever takes it first, and logs
// which: "<name> sent <v> to a|b".
//
//co:stackless
func SelectSender(co *stackful.Co, a, b *cosync.Chan[int], v int, name string, log *Log) {
	switch cosync.Select(co, a.SendCase(v), b.SendCase(v)) {
	case 0:
		log.Add("%s sent %d to a", name, v)
	case 1:
		log.Add("%s sent %d to b", name, v)
	default:
		log.Add("%s none", name)
	}
}

// Locker locks mu, holds it across k reschedulings, and unlocks it,
// logging "<name> locked" and "<name> unlocked" (or the error).
//
//co:stackless
func Locker(co *stackful.Co, mu *cosync.Mutex, k int, timeout time.Duration, name string, log *Log) {
	if err := mu.LockTimeout(co, timeout); err != nil {
		log.Add("%s lock: %v", name, err)
		return
	}
	log.Add("%s locked", name)
	for i := 0; i < k; i++ {
		co.Gosched()
	}
	log.Add("%s unlocked", name)
	mu.Unlock()
}

// RWLocker takes rw for writing (write) or reading, holds it across k
// reschedulings, and releases it, logging "<name> in" and "<name> out".
//
//co:stackless
func RWLocker(co *stackful.Co, rw *cosync.RWMutex, write bool, k int, name string, log *Log) {
	var err error
	if write {
		err = rw.Lock(co)
	} else {
		err = rw.RLock(co)
	}
	if err != nil {
		log.Add("%s lock: %v", name, err)
		return
	}
	log.Add("%s in", name)
	for i := 0; i < k; i++ {
		co.Gosched()
	}
	log.Add("%s out", name)
	if write {
		rw.Unlock()
	} else {
		rw.RUnlock()
	}
}

// GroupWaiter waits on wg and logs "<name> waited <err>".
//
//co:stackless
func GroupWaiter(co *stackful.Co, wg *cosync.WaitGroup, timeout time.Duration, name string, log *Log) {
	err := wg.WaitTimeout(co, timeout)
	log.Add("%s waited %v", name, err)
}

// Worker sleeps for d, logs "<name> done" and calls wg.Done.
//
//co:stackless
func Worker(co *stackful.Co, wg *cosync.WaitGroup, d time.Duration, name string, log *Log) {
	co.Sleep(d)
	log.Add("%s done", name)
	wg.Done()
}

// Acquirer acquires n of s, holds it across k reschedulings and releases
// it, logging "<name> got <n>" and "<name> put <n>" (or the error).
//
//co:stackless
func Acquirer(co *stackful.Co, s *cosync.Semaphore, n int64, k int, timeout time.Duration, name string, log *Log) {
	if err := s.AcquireTimeout(co, n, timeout); err != nil {
		log.Add("%s acquire: %v", name, err)
		return
	}
	log.Add("%s got %d", name, n)
	for i := 0; i < k; i++ {
		co.Gosched()
	}
	log.Add("%s put %d", name, n)
	s.Release(n)
}

// OnceUser runs init through once (the first caller sleeps 1 ms, then sets
// *value to 42) and logs what it saw: "<name> init", "<name> value 42".
//
//co:stackless
func OnceUser(co *stackful.Co, once *cosync.Once, value *int, name string, log *Log) {
	first, err := once.Begin(co)
	if err != nil {
		log.Add("%s once: %v", name, err)
		return
	}
	if first {
		log.Add("%s init", name)
		co.Sleep(time.Millisecond)
		*value = 42
		once.End()
	}
	log.Add("%s value %d", name, *value)
}

// CrossPing sends 1..n on ping, adds each answer from pong to *sum under
// mu, and closes ping: the cross-loop test runs it on another loop than the
// channels'.
//
//co:stackless
func CrossPing(co *stackful.Co, ping, pong *cosync.Chan[int], mu *cosync.Mutex, n int, sum *int, log *Log) {
	for i := 1; i <= n; i++ {
		ping.Send(co, i)
		v, _ := pong.Recv(co)
		mu.Lock(co)
		*sum += v
		cosync.Call(co, mu.Loop(), mu.Unlock)
	}
	cosync.Call(co, ping.Loop(), ping.Close)
}
