package costest

import (
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Prims is one of each primitive, set up so that each blocking operation
// of Blocker blocks: the channels are empty and unbuffered, the locks are
// held, the wait group counts one, the semaphore is full and the
// initialization has begun.
type Prims struct {
	S    *cosync.Chan[int] // send blocks on it
	R    *cosync.Chan[int] // recv blocks on it
	C    *cosync.Chan[int] // select receives from it
	D    *cosync.Chan[int] // and sends to it
	Mu   cosync.Mutex
	RW   cosync.RWMutex
	WG   cosync.WaitGroup
	Sem  *cosync.Semaphore
	Once cosync.Once
}

// NewPrims returns primitives whose operations block. Call Hold on the
// loop before Blocker runs.
func NewPrims() *Prims {
	p := &Prims{S: cosync.NewChan[int](0), R: cosync.NewChan[int](0), C: cosync.NewChan[int](0), D: cosync.NewChan[int](0), Sem: cosync.NewSemaphore(1)}
	p.Mu.TryLock()
	p.RW.TryLock()
	p.WG.Add(1)
	p.Sem.TryAcquire(1)
	return p
}

// Blocking operations of Blocker.
var BlockOps = []string{"send", "recv", "select", "lock", "rlock", "wait", "acquire", "once"}

// Blocker blocks in operation op of p and logs "<op> <err>" when it
// returns (for recv: "<op> <ok> <err>"; select: "<op> <index>").
//
//co:stackless
func Blocker(co *stackful.Co, op string, p *Prims, log *Log) {
	switch op {
	case "send":
		log.Add("%s %v", op, p.S.Send(co, 1))
	case "recv":
		_, ok, err := p.R.RecvTimeout(co, -1)
		log.Add("%s %v %v", op, ok, err)
	case "select":
		log.Add("%s %d", op, cosync.Select(co, p.C.RecvCase(nil, nil), p.D.SendCase(2)))
	case "lock":
		log.Add("%s %v", op, p.Mu.Lock(co))
	case "rlock":
		log.Add("%s %v", op, p.RW.RLock(co))
	case "wait":
		log.Add("%s %v", op, p.WG.Wait(co))
	case "acquire":
		log.Add("%s %v", op, p.Sem.Acquire(co, 1))
	case "once":
		first, err := p.Once.Begin(co)
		log.Add("%s %v %v", op, first, err)
	}
}
