package pgstore

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/pgstore/internal/chaosflow"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// waitFor polls cond every 10 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for !cond() {
		if time.Now().After(end) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// TestRecovery kills a worker holding 100 running tasks (each checkpoints
// every 100 ms under its lease) while a second worker idles, and measures
// the time from the kill until the second worker holds them all: the
// leases run out (at most the lease after the kill) and the next claim
// (every poll, 100 ms) takes them. The target is lease + 1 s.
func TestRecovery(t *testing.T) {
	const (
		m     = 100
		lease = 2 * time.Second
	)
	c := newChaosRun(t, 0, lease)
	until := time.Now().Add(2 * time.Minute)
	err := parallel(m, func(co *stackful.Co, i int) error {
		return durable.Start(co, c.s, flowID(i), chaosflow.NewSpinFrame(flowID(i), 100*time.Millisecond, until))
	})
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-url", c.url, "-schema", c.schema, "-lease", lease.String(), "-poll", "100ms"}
	a := newFleet(t, "a", 1, args...)
	owned := func(name string) int64 {
		return queryInt(t, c.url, `SELECT count(*) FROM `+c.q+`.tasks WHERE owner = '`+name+`'`)
	}
	if !waitFor(30*time.Second, func() bool { return owned(a.name(0)) == m }) {
		t.Fatalf("worker A holds %d of %d tasks after 30 s", owned(a.name(0)), m)
	}
	b := newFleet(t, "b", 1, args...)
	// B is up once its sessions are: it claims (nothing) every poll.
	if !waitFor(30*time.Second, func() bool {
		return queryInt(t, c.url, `SELECT count(*) FROM pg_stat_activity WHERE application_name = '`+b.name(0)+`'`) > 0
	}) {
		t.Fatal("worker B has no session after 30 s")
	}
	if n := owned(b.name(0)); n != 0 {
		t.Fatalf("worker B holds %d tasks while A is alive", n)
	}
	a.kill(0)
	killed := time.Now()
	leaseLeft := time.UnixMicro(queryInt(t, c.url, `SELECT `+micros("max(lease_until)")+` FROM `+c.q+`.tasks`)).Sub(killed)
	if !waitFor(lease+30*time.Second, func() bool { return owned(b.name(0)) == m }) {
		t.Fatalf("worker B holds %d of %d tasks %v after A was killed", owned(b.name(0)), m, time.Since(killed))
	}
	recovery := time.Since(killed)
	// B runs them: each commits twice more, under B's name.
	rows := query(t, c.url, `SELECT id, seq FROM `+c.q+`.tasks`)
	base := map[string]int64{}
	for i := range rows.Len() {
		base[rows.Text(i, 0)], _ = rows.Int(i, 1)
	}
	if !waitFor(10*time.Second, func() bool {
		rows := query(t, c.url, `SELECT id, seq FROM `+c.q+`.tasks WHERE owner = '`+b.name(0)+`'`)
		moved := 0
		for i := range rows.Len() {
			if seq, _ := rows.Int(i, 1); seq >= base[rows.Text(i, 0)]+2 {
				moved++
			}
		}
		return moved == m
	}) {
		t.Errorf("worker B does not run all the tasks it claimed")
	}
	t.Logf("%d tasks resumed by worker B %v after worker A was killed (lease %v, A's leases ran %v past the kill, claim poll 100 ms)",
		m, recovery.Round(time.Millisecond), lease, leaseLeft.Round(time.Millisecond))
	if recovery > lease+time.Second {
		t.Errorf("recovery took %v, more than lease + 1 s (%v)", recovery, lease+time.Second)
	}
	for _, e := range append(a.failures(), b.failures()...) {
		t.Errorf("a worker exited on its own: %s", e)
	}
}

// TestRecoverySameName kills a worker holding 100 running tasks and
// starts it again under the same name: the new process ends the leases
// its predecessor held ([durable.WorkerReleaser]) and claims the tasks at
// once, without waiting for the leases (10 s here) to expire.
func TestRecoverySameName(t *testing.T) {
	const (
		m     = 100
		lease = 10 * time.Second
	)
	c := newChaosRun(t, 0, lease)
	until := time.Now().Add(2 * time.Minute)
	err := parallel(m, func(co *stackful.Co, i int) error {
		return durable.Start(co, c.s, flowID(i), chaosflow.NewSpinFrame(flowID(i), 100*time.Millisecond, until))
	})
	if err != nil {
		t.Fatal(err)
	}
	a := &fleet{t: t, prefix: "same", bin: buildWorker(t), args: []string{"-url", c.url, "-schema", c.schema, "-lease", lease.String(), "-poll", "100ms"},
		logDir: t.TempDir(), procs: make([]*proc, 1), stable: true}
	t.Cleanup(a.stop)
	a.start(0)
	name := a.name(0)
	seqs := func() (owned int, sum int64) {
		rows := query(t, c.url, `SELECT owner = '`+name+`' AND lease_until > now(), seq FROM `+c.q+`.tasks`)
		for i := range rows.Len() {
			if rows.Text(i, 0) == "t" {
				owned++
			}
			n, _ := rows.Int(i, 1)
			sum += n
		}
		return owned, sum
	}
	if !waitFor(30*time.Second, func() bool { n, _ := seqs(); return n == m }) {
		n, _ := seqs()
		t.Fatalf("worker %s holds %d of %d tasks after 30 s", name, n, m)
	}
	a.kill(0)
	killed := time.Now()
	_, before := seqs()
	a.start(0)
	// Resumed: every task committed again (seq moved) under the new process.
	var after int64
	if !waitFor(lease/2, func() bool { _, after = seqs(); return after >= before+2*m }) {
		t.Fatalf("%v after the kill, the restarted worker has committed %d checkpoints (want at least %d): it waits for its predecessor's leases",
			time.Since(killed).Round(time.Millisecond), after-before, 2*m)
	}
	recovery := time.Since(killed)
	t.Logf("%d tasks resumed by the restarted %s %v after the kill (lease %v)", m, name, recovery.Round(time.Millisecond), lease)
	for _, e := range a.failures() {
		t.Errorf("a worker exited on its own: %s", e)
	}
}

// TestServerRestart stops the PostgreSQL server (COGEN_PG_STOP) while
// three workers run 1,000 workflows, starts it again (COGEN_PG_START)
// once the workers' leases (2 s) have run out, and checks that the
// workers reconnect and everything completes as in TestChaos: the tasks
// each worker held in memory are dropped or claimed again, never run
// twice at once. The signals are all sent before the workers start (the
// test's own calls would fail during the restart), so each workflow finds
// its signals queued when it asks.
func TestServerRestart(t *testing.T) {
	stop, start := os.Getenv("COGEN_PG_STOP"), os.Getenv("COGEN_PG_START")
	if stop == "" || start == "" {
		serverURL(t)
		t.Skip("COGEN_PG_STOP and COGEN_PG_START are not set (see .ci/dbservers)")
	}
	const n = 1000
	const lease = 2 * time.Second
	c := newChaosRun(t, n, lease)
	c.start(5 * time.Millisecond)
	for step := range chaosflow.Steps {
		if chaosflow.Receives(step) {
			if err := parallel(n, func(co *stackful.Co, i int) error {
				return durable.Send(co, c.s, flowID(i), chaosflow.SignalName(step), []byte{signalValue(i, step)})
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	t0 := time.Now()
	f := newFleet(t, "w", 3, "-url", c.url, "-schema", c.schema, "-lease", lease.String(), "-poll", "100ms")
	if !waitFor(60*time.Second, func() bool { return c.done() >= n/4 }) {
		t.Fatalf("%d of %d done after 60 s", c.done(), n)
	}
	before := c.done()
	if out, err := exec.Command("sh", "-c", stop).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", stop, err, out)
	}
	time.Sleep(lease + 500*time.Millisecond)
	if out, err := exec.Command("sh", "-c", start).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", start, err, out)
	}
	restarted := time.Since(t0)
	if !waitFor(120*time.Second, func() bool { return c.done() == n }) {
		t.Errorf("%d of %d done 120 s after the restart", c.done(), n)
	}
	elapsed := time.Since(t0)
	f.stop()
	for _, e := range f.failures() {
		t.Errorf("a worker exited on its own: %s", e)
	}
	if t.Failed() {
		return
	}
	c.check()
	t.Logf("%d workflows in %v; server restarted at %v with %d done", n, elapsed.Round(time.Millisecond), restarted.Round(time.Millisecond), before)
}
