package cosync_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// The differential test drives actors (coroutines that run one channel
// command at a time) with random commands, and does the same with
// goroutines on Go's own channels as the oracle. After every command both
// worlds settle (every actor has finished its command or is blocked in it)
// and must report the same completions: which blocked sender or receiver a
// value went to, in FIFO order, what a closed channel returns, what a
// try-operation finds. A wrong wake-up order, a lost wake-up or a value
// delivered twice shows as a difference.

// A world is a set of channels and actors the driver commands.
type world interface {
	issue(actor int, cmd Cmd)
	trySend(ch, v int) bool
	tryRecv(ch int) (v int, ok, ready bool)
	close(ch int)
	settle() []string // the actors' completions since the last settle, sorted
	stop()
}

// cosyncWorld runs the actors as coroutines of one model on one loop.
// Both worlds implement it.
var _, _ world = (*cosyncWorld)(nil), (*goWorld)(nil)

type cosyncWorld struct {
	e     *Env
	chans []*cosync.Chan[int]
	cmds  []*cosync.Chan[Cmd]
	log   *Log
	seen  int
}

func newCosyncWorld(t *testing.T, m Model, caps []int, actors int) *cosyncWorld {
	w := &cosyncWorld{e: NewEnv(t), log: &Log{}}
	for _, c := range caps {
		w.chans = append(w.chans, cosync.NewChan[int](c))
	}
	for i := range actors {
		cmds := cosync.NewChan[Cmd](0)
		w.cmds = append(w.cmds, cmds)
		w.e.Go(m, func(co *stackful.Co) { Actor(co, i, cmds, w.chans, w.log) },
			func() stackless.Frame { return NewActorFrame(i, cmds, w.chans, w.log) })
	}
	w.e.Settle()
	return w
}

func (w *cosyncWorld) issue(a int, cmd Cmd) {
	if !w.cmds[a].TrySend(cmd) {
		w.e.T.Fatalf("actor %d is not waiting for a command", a)
	}
}
func (w *cosyncWorld) trySend(ch, v int) bool { return w.chans[ch].TrySend(v) }
func (w *cosyncWorld) tryRecv(ch int) (int, bool, bool) {
	return w.chans[ch].TryRecv()
}
func (w *cosyncWorld) close(ch int) { w.chans[ch].Close() }
func (w *cosyncWorld) settle() []string {
	w.e.Settle()
	lines := slices.Clone(w.log.Lines()[w.seen:])
	w.seen = len(w.log.Lines())
	slices.Sort(lines)
	return lines
}
func (w *cosyncWorld) stop() {
	for _, c := range w.cmds {
		c.Close()
	}
	w.e.Settle()
	if !w.e.Done() {
		w.e.T.Fatal("actors still running after their commands closed")
	}
}

// goWorld runs the actors as goroutines on Go's channels. stop ends them
// all, including those blocked in a channel operation (each operation is a
// select with done, which is never ready before stop): they used to stay
// blocked for good, and under -count=20 nine thousand left behind made
// every goroutine dump of settle slower (TestChanOracle ran for 26
// minutes beside two CPU hogs).
type goWorld struct {
	t           *testing.T
	chans       []chan int
	cmds        []chan Cmd
	results     chan string
	ids         []string // goroutine ids of the actors
	outstanding []bool
	done        chan struct{}
	wg          sync.WaitGroup
}

func newGoWorld(t *testing.T, caps []int, actors int) *goWorld {
	w := &goWorld{t: t, results: make(chan string, 4096), outstanding: make([]bool, actors), done: make(chan struct{})}
	for _, c := range caps {
		w.chans = append(w.chans, make(chan int, c))
	}
	ids := make(chan string)
	for i := range actors {
		cmds := make(chan Cmd)
		w.cmds = append(w.cmds, cmds)
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			ids <- goid()
			for cmd := range cmds {
				switch cmd.Op {
				case OpSend:
					select {
					case w.chans[cmd.Ch] <- cmd.Val:
					case <-w.done:
						return
					}
					w.results <- fmt.Sprintf("a%d sent %d on c%d", i, cmd.Val, cmd.Ch)
				case OpRecv:
					var v int
					var ok bool
					select {
					case v, ok = <-w.chans[cmd.Ch]:
					case <-w.done:
						return
					}
					w.results <- fmt.Sprintf("a%d recv %d %v on c%d", i, v, ok, cmd.Ch)
				}
			}
		}()
		w.ids = append(w.ids, <-ids)
	}
	return w
}

func goid() string {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s = strings.TrimPrefix(s, "goroutine ")
	return s[:strings.IndexByte(s, ' ')]
}

func (w *goWorld) issue(a int, cmd Cmd) {
	w.outstanding[a] = true
	w.cmds[a] <- cmd
}
func (w *goWorld) trySend(ch, v int) bool {
	select {
	case w.chans[ch] <- v:
		return true
	default:
		return false
	}
}
func (w *goWorld) tryRecv(ch int) (int, bool, bool) {
	select {
	case v, ok := <-w.chans[ch]:
		return v, ok, true
	default:
		return 0, false, false
	}
}
func (w *goWorld) close(ch int) { close(w.chans[ch]) }

// settle waits until every actor with a command is blocked in a channel
// operation (per a goroutine dump taken while no result was pending) and
// collects the results.
func (w *goWorld) settle() []string {
	var lines []string
	collect := func() bool {
		got := false
		for {
			select {
			case l := <-w.results:
				a, _ := strconv.Atoi(l[1:strings.IndexByte(l, ' ')])
				w.outstanding[a] = false
				lines = append(lines, l)
				got = true
			default:
				return got
			}
		}
	}
	buf := dumpBuf
	deadline := time.Now().Add(10 * time.Second)
	for {
		collect()
		if !slices.Contains(w.outstanding, true) {
			break
		}
		for range 3 {
			runtime.Gosched() // let the actors reach their operation
		}
		if collect() {
			continue
		}
		// A dump that fills the buffer may have cut off an actor: grow it
		// and take another.
		n := runtime.Stack(buf, true)
		for n == len(buf) {
			buf = make([]byte, 2*len(buf))
			n = runtime.Stack(buf, true)
		}
		dumpBuf = buf
		dump := buf[:n]
		if collect() {
			continue
		}
		if w.allBlocked(dump) {
			break
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("Go actors did not settle:\n%s", dump)
		}
		runtime.Gosched()
	}
	slices.Sort(lines)
	return lines
}

var dumpBuf = make([]byte, 1<<18) // grown by settle when a dump fills it

func (w *goWorld) allBlocked(dump []byte) bool {
	for a, busy := range w.outstanding {
		if !busy {
			continue
		}
		i := bytes.Index(dump, []byte("goroutine "+w.ids[a]+" ["))
		if i < 0 {
			return false
		}
		// An actor's operation is a select with done (see goWorld).
		if state := dump[i+len("goroutine "+w.ids[a]+" ["):]; !bytes.HasPrefix(state, []byte("select")) {
			return false
		}
	}
	return true
}

func (w *goWorld) stop() {
	close(w.done)
	for _, c := range w.cmds {
		close(c)
	}
	w.wg.Wait()
}

// TestChanOracle runs many random command sequences in each model and in
// Go, comparing every step.
func TestChanOracle(t *testing.T) {
	seeds := 100
	if testing.Short() {
		seeds = 20
	}
	forModels(t, func(t *testing.T, m Model) {
		for seed := range uint64(seeds) {
			runOracle(t, m, seed)
			if t.Failed() {
				return
			}
		}
	})
}

func runOracle(t *testing.T, m Model, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 10))
	caps := make([]int, 1+rng.IntN(3))
	for i := range caps {
		caps[i] = rng.IntN(3)
	}
	actors := 2 + rng.IntN(4)
	a := newCosyncWorld(t, m, caps, actors)
	b := newGoWorld(t, caps, actors)
	defer b.stop()
	busy := make([]bool, actors)
	pendingSends := make([]int, len(caps))
	closed := make([]bool, len(caps))
	var history []string
	check := func(what string, x, y []string) {
		history = append(history, what)
		if !slices.Equal(x, y) {
			t.Fatalf("seed %d, %s: after\n  %s\ncosync: %q\nGo:     %q", seed, m, strings.Join(history, "\n  "), x, y)
		}
		for _, l := range x {
			if !strings.HasPrefix(l, "a") {
				continue // a try-operation's outcome
			}
			a, _ := strconv.Atoi(l[1:strings.IndexByte(l, ' ')])
			busy[a] = false
			if strings.Contains(l, " sent ") {
				ch, _ := strconv.Atoi(l[strings.LastIndexByte(l, 'c')+1:])
				pendingSends[ch]--
			}
		}
	}
	val := 0
	for range 60 {
		ch := rng.IntN(len(caps))
		val++
		switch r := rng.IntN(12); {
		case r < 7:
			var idle []int
			for i, bz := range busy {
				if !bz {
					idle = append(idle, i)
				}
			}
			if len(idle) == 0 {
				continue
			}
			act := idle[rng.IntN(len(idle))]
			cmd := Cmd{Op: OpRecv, Ch: ch}
			if !closed[ch] && rng.IntN(2) == 0 {
				cmd = Cmd{Op: OpSend, Ch: ch, Val: val}
				pendingSends[ch]++
			}
			busy[act] = true
			a.issue(act, cmd)
			b.issue(act, cmd)
			check(fmt.Sprintf("a%d %+v", act, cmd), a.settle(), b.settle())
		case r < 9 && !closed[ch]:
			x, y := a.trySend(ch, val), b.trySend(ch, val)
			what := fmt.Sprintf("trySend c%d %d", ch, val)
			check(what, append(a.settle(), fmt.Sprint(x)), append(b.settle(), fmt.Sprint(y)))
		case r == 11 && !closed[ch] && pendingSends[ch] == 0:
			closed[ch] = true
			a.close(ch)
			b.close(ch)
			check(fmt.Sprintf("close c%d", ch), a.settle(), b.settle())
		default:
			v1, ok1, r1 := a.tryRecv(ch)
			v2, ok2, r2 := b.tryRecv(ch)
			check(fmt.Sprintf("tryRecv c%d", ch), append(a.settle(), fmt.Sprint(v1, ok1, r1)), append(b.settle(), fmt.Sprint(v2, ok2, r2)))
		}
	}
	// Drain every channel (buffers and blocked senders), then close them:
	// the blocked receivers wake, and every actor ends.
	for ch := range caps {
		for {
			v1, ok1, r1 := a.tryRecv(ch)
			v2, ok2, r2 := b.tryRecv(ch)
			check(fmt.Sprintf("drain c%d", ch), append(a.settle(), fmt.Sprint(v1, ok1, r1)), append(b.settle(), fmt.Sprint(v2, ok2, r2)))
			if !r1 || !ok1 {
				break
			}
		}
		if !closed[ch] {
			a.close(ch)
			b.close(ch)
			check(fmt.Sprintf("close c%d", ch), a.settle(), b.settle())
		}
	}
	a.stop()
}
