package pgstore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/pgstore/internal/chaosflow"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// chaosCount is the number of workflows of TestChaos: COGEN_CHAOS_N, or
// 10,000 (1,000 with -short).
func chaosCount(t *testing.T) int {
	if s := os.Getenv("COGEN_CHAOS_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("COGEN_CHAOS_N=%q", s)
		}
		return n
	}
	if testing.Short() {
		return 1000
	}
	return 10000
}

func flowID(i int) durable.ID { return durable.ID(fmt.Sprintf("wf%05d", i)) }

// signalValue is the value of the signal step receives in workflow i.
func signalValue(i, step int) byte { return byte((i*7 + step) % 251) }

// expectedResult is Flow's result for workflow i.
func expectedResult(i int) string {
	sum := 0
	for step := range chaosflow.Steps {
		if chaosflow.Receives(step) {
			sum += int(signalValue(i, step))
		}
	}
	return strconv.Itoa(sum)
}

// chaosRun is one run of Flow workflows on worker processes.
type chaosRun struct {
	t      *testing.T
	url    string
	schema string
	q      string // the schema, quoted
	s      *Store
	n      int
	lease  time.Duration
}

func newChaosRun(t *testing.T, n int, lease time.Duration) *chaosRun {
	url := serverURL(t)
	buildWorker(t)
	schema := freshSchema(t, url)
	c := &chaosRun{t: t, url: url, schema: schema, q: quoteIdent(schema), n: n, lease: lease}
	sqlExec(t, url, chaosflow.EffectsDDL(c.q))
	s, err := OpenURL(url, Options{Schema: schema, Conns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c.s = s
	return c
}

// parallel runs fn(co, i) for i in [0, n) on 8 coroutines of a throwaway
// env, and returns the first error.
func parallel(n int, fn func(co *stackful.Co, i int) error) error {
	next := 0
	var firstErr error
	err := durable.Do(func(co *stackful.Co) error {
		env := co.Env()
		live := 0
		for range 8 {
			live++
			env.Create(func(co *stackful.Co) {
				defer func() { live-- }()
				for {
					i := next
					next++
					if i >= n || firstErr != nil {
						return
					}
					if err := fn(co, i); err != nil && firstErr == nil {
						firstErr = err
					}
				}
			}, nil).Resume()
		}
		for live > 0 {
			co.Sleep(5 * time.Millisecond)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return firstErr
}

// start starts the n workflows.
func (c *chaosRun) start(nap time.Duration) {
	err := parallel(c.n, func(co *stackful.Co, i int) error {
		return durable.Start(co, c.s, flowID(i), chaosflow.NewFlowFrame(flowID(i), nap))
	})
	if err != nil {
		c.t.Fatal(err)
	}
}

// sendSignals sends the signals of the given step to every workflow, in
// a random order.
func (c *chaosRun) sendSignals(step int, rng *rand.Rand) error {
	order := rng.Perm(c.n)
	return parallel(c.n, func(co *stackful.Co, k int) error {
		i := order[k]
		return durable.Send(co, c.s, flowID(i), chaosflow.SignalName(step), []byte{signalValue(i, step)})
	})
}

// deadLeases returns, for each owner of tasks not finished, how many
// it holds and the latest end of their leases.
func (c *chaosRun) ownersOfLive() map[string]ownerLeases {
	rows := query(c.t, c.url, `SELECT owner, count(*), `+micros("max(lease_until)")+` FROM `+c.q+`.tasks
		WHERE owner IS NOT NULL AND state IN ('running', 'sleeping', 'waiting') GROUP BY owner`)
	m := map[string]ownerLeases{}
	for i := range rows.Len() {
		n, _ := rows.Int(i, 1)
		us, _ := rows.Int(i, 2)
		m[rows.Text(i, 0)] = ownerLeases{n, time.UnixMicro(us)}
	}
	return m
}

type ownerLeases struct {
	n     int64
	until time.Time
}

func (c *chaosRun) done() int64 {
	return queryInt(c.t, c.url, `SELECT count(*) FROM `+c.q+`.tasks WHERE state = 'done'`)
}

// check asserts the end state: every workflow done with its result, each
// step's effect recorded once, no signal left, no lease held.
func (c *chaosRun) check() {
	t := c.t
	q := c.q
	if n := queryInt(t, c.url, `SELECT count(*) FROM `+q+`.tasks WHERE state <> 'done'`); n != 0 {
		rows := query(t, c.url, `SELECT id, state, coalesce(error, '') FROM `+q+`.tasks WHERE state <> 'done' LIMIT 5`)
		for i := range rows.Len() {
			t.Errorf("task %s: %s %s", rows.Text(i, 0), rows.Text(i, 1), rows.Text(i, 2))
		}
		t.Fatalf("%d of %d workflows not done", n, c.n)
	}
	rows := query(t, c.url, `SELECT id, convert_from(result, 'UTF8') FROM `+q+`.tasks ORDER BY id`)
	if rows.Len() != c.n {
		t.Fatalf("%d tasks, want %d", rows.Len(), c.n)
	}
	bad := 0
	for i := range rows.Len() {
		if id, res := rows.Text(i, 0), rows.Text(i, 1); id != string(flowID(i)) || res != expectedResult(i) {
			if bad++; bad <= 5 {
				t.Errorf("task %s: result %q, want %s %q", id, res, flowID(i), expectedResult(i))
			}
		}
	}
	want := int64(c.n * chaosflow.Steps)
	effects := queryInt(t, c.url, `SELECT count(*) FROM `+q+`.effects`)
	distinct := queryInt(t, c.url, `SELECT count(DISTINCT (workflow, step)) FROM `+q+`.effects`)
	inRange := queryInt(t, c.url, fmt.Sprintf(`SELECT count(*) FROM %s.effects WHERE step >= 0 AND step < %d`, q, chaosflow.Steps))
	if effects != want || distinct != want || inRange != want {
		t.Errorf("effects: %d rows, %d distinct steps, %d in range; want %d", effects, distinct, inRange, want)
	}
	if n := queryInt(t, c.url, `SELECT count(*) FROM `+q+`.signals`); n != 0 {
		t.Errorf("%d signals left", n)
	}
	if n := queryInt(t, c.url, `SELECT count(*) FROM `+q+`.tasks WHERE owner IS NOT NULL`); n != 0 {
		t.Errorf("%d tasks leased after the end", n)
	}
	attempts := queryInt(t, c.url, `SELECT count(*) FROM `+q+`.attempts`)
	commits := queryInt(t, c.url, `SELECT sum(seq)::bigint FROM `+q+`.tasks`)
	t.Logf("%d workflows, %d steps: %d effect attempts (%d re-run steps deduplicated by their keys), %d commits",
		c.n, want, attempts, attempts-effects, commits)
}

// TestChaos runs Flow workflows (6 steps: effects recorded by step key,
// short sleeps, two signals each, sent by the test at random moments) on
// three worker processes while a chaos loop kills a random worker with
// SIGKILL every 200-500 ms and restarts it. Every workflow must complete
// with its result, each step's effect be recorded once, no signal be
// left, and no lease of a killed worker outlast the kill by more than the
// lease time (and 3 s of slack: a commit the worker sent just before it
// died is still applied, and renews the lease from when the server runs
// it). How soon other workers claim those tasks depends on their load
// (each lives about a second here); it is reported, and TestRecovery
// measures it on a quiet fleet.
func TestChaos(t *testing.T) {
	n := chaosCount(t)
	const lease = 2 * time.Second
	c := newChaosRun(t, n, lease)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	killRng := rand.New(rand.NewPCG(seed, 1))
	sendRng := rand.New(rand.NewPCG(seed, 2))
	t0 := time.Now()
	c.start(5 * time.Millisecond)
	tStarted := time.Since(t0)
	f := newFleet(t, "w", 3, "-url", c.url, "-schema", c.schema, "-lease", lease.String(), "-poll", "100ms")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	killed := map[string]time.Time{}
	kills := 0
	wg.Add(1)
	go func() { // the chaos loop
		defer wg.Done()
		r := killRng
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(200+r.IntN(300)) * time.Millisecond):
			}
			i := r.IntN(3)
			name := f.name(i)
			f.kill(i)
			mu.Lock()
			killed[name] = time.Now()
			kills++
			mu.Unlock()
			f.start(i)
		}
	}()
	sendErr := make(chan error, 1)
	go func() { // the signals: all of step 2's, then all of step 5's
		for step := range chaosflow.Steps {
			if chaosflow.Receives(step) {
				if err := c.sendSignals(step, sendRng); err != nil {
					sendErr <- err
					return
				}
			}
		}
		sendErr <- nil
	}()

	// Watch the killed workers' tasks: their leases must end within the
	// lease time of the kill (a dead worker renews nothing), and the
	// tasks are claimable from then on.
	deadline := time.Now().Add(time.Duration(60+n/50) * time.Second)
	var worst time.Duration
	for {
		done := c.done()
		now := time.Now()
		owners := c.ownersOfLive()
		mu.Lock()
		for owner, o := range owners {
			if at, ok := killed[owner]; ok {
				worst = max(worst, now.Sub(at))
				if o.until.After(at.Add(lease + 3*time.Second)) {
					t.Errorf("%d tasks leased by %s until %v, %v after it was killed (lease %v)",
						o.n, owner, o.until, o.until.Sub(at), lease)
				}
			}
		}
		mu.Unlock()
		if done == int64(n) || t.Failed() {
			break
		}
		if now.After(deadline) {
			t.Errorf("%d of %d workflows done after %v", done, n, time.Since(t0).Round(time.Second))
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	elapsed := time.Since(t0)
	f.stop()
	if err := <-sendErr; err != nil {
		t.Errorf("sending signals: %v", err)
	}
	for _, e := range f.failures() {
		t.Errorf("a worker exited on its own: %s", e)
	}
	if t.Failed() {
		return
	}
	c.check()
	t.Logf("%d workflows in %v (started in %v), %d workers killed; tasks of a killed worker still held in its name at most %v after the kill (lease %v)",
		n, elapsed.Round(time.Millisecond), tStarted.Round(time.Millisecond), kills, worst.Round(time.Millisecond), lease)
}
