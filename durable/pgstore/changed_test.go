package pgstore

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/pgstore/internal/changeflow"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// TestChangedCode runs tasks of changeflow.Count on a worker process
// built from the package as it is, kills it once each task has
// checkpointed a few times, and gives the tasks to a worker built with the
// tag pgstore_changed, whose Count (same name, another body) has another
// fingerprint. Each Count task must end Parked with an error naming the
// function and stackless.ErrChangedCode, its snapshot the one the first
// worker committed (no step of the other body committed), while the
// second worker runs changeflow.Stable tasks (the same in both builds)
// to completion, before and after parking, and never exits.
func TestChangedCode(t *testing.T) {
	const m = 20
	c := newChaosRun(t, 0, 2*time.Second)
	changed := buildChangedWorker(t)
	countID := func(i int) durable.ID { return durable.ID(fmt.Sprintf("count-%d", i)) }
	stableID := func(i int) durable.ID { return durable.ID(fmt.Sprintf("stable-%d", i)) }
	// 1,000 sleeps of 20 ms: far longer than the test.
	if err := parallel(m, func(co *stackful.Co, i int) error {
		return durable.Start(co, c.s, countID(i), changeflow.NewCountFrame(countID(i), 1000, 20*time.Millisecond))
	}); err != nil {
		t.Fatal(err)
	}
	args := []string{"-url", c.url, "-schema", c.schema, "-lease", "2s", "-poll", "100ms"}
	a := newFleet(t, "a", 1, args...)
	counting := `SELECT count(*) FROM ` + c.q + `.tasks WHERE id LIKE 'count-%' AND seq >= 3 AND state = 'sleeping' AND owner = '` + a.name(0) + `'`
	if !waitFor(30*time.Second, func() bool { return queryInt(t, c.url, counting) == m }) {
		t.Fatalf("%d of %d Count tasks checkpointed 3 times by worker A after 30 s", queryInt(t, c.url, counting), m)
	}
	a.kill(0)
	snap := func() map[string]string {
		rows := query(t, c.url, `SELECT id, md5(snapshot) FROM `+c.q+`.tasks WHERE id LIKE 'count-%'`)
		out := map[string]string{}
		for i := range rows.Len() {
			out[rows.Text(i, 0)] = rows.Text(i, 1)
		}
		return out
	}
	// A commit A sent just before it died may still be applied (the
	// server can be behind): the snapshots to compare are those once A's
	// leases have run out, which B waits for anyway.
	if !waitFor(30*time.Second, func() bool {
		return queryInt(t, c.url, `SELECT count(*) FROM `+c.q+`.tasks WHERE lease_until > now()`) == 0
	}) {
		t.Fatal("worker A's leases still live 30 s after it was killed")
	}
	time.Sleep(100 * time.Millisecond)
	atKill := snap()

	startStable := func(from, to int) {
		if err := parallel(to-from, func(co *stackful.Co, i int) error {
			return durable.Start(co, c.s, stableID(from+i), changeflow.NewStableFrame(stableID(from+i), 5))
		}); err != nil {
			t.Fatal(err)
		}
	}
	startStable(0, m)
	b := newFleetOf(t, changed, "b", 1, args...)
	count := func(where string) int64 {
		return queryInt(t, c.url, `SELECT count(*) FROM `+c.q+`.tasks WHERE `+where)
	}
	if !waitFor(60*time.Second, func() bool {
		return count(`id LIKE 'count-%' AND state = 'parked'`) == m && count(`id LIKE 'stable-%' AND state = 'done'`) == m
	}) {
		t.Fatalf("after 60 s: %d of %d Count tasks parked, %d of %d Stable tasks done",
			count(`id LIKE 'count-%' AND state = 'parked'`), m, count(`id LIKE 'stable-%' AND state = 'done'`), m)
	}
	// The worker goes on after parking.
	startStable(m, 2*m)
	if !waitFor(60*time.Second, func() bool { return count(`id LIKE 'stable-%' AND state = 'done'`) == 2*m }) {
		t.Fatalf("after 60 s: %d of %d Stable tasks done", count(`id LIKE 'stable-%' AND state = 'done'`), 2*m)
	}

	inCo(t, func(co *stackful.Co) {
		for i := range m {
			in, err := c.s.Get(co, countID(i))
			if err != nil {
				t.Fatal(err)
			}
			if in.State != durable.Parked || !strings.Contains(in.Error, stackless.ErrChangedCode.Error()) || !strings.Contains(in.Error, "changeflow.Count") {
				t.Errorf("%s: %v, error %q; want parked with an error naming changeflow.Count and %q", in.ID, in.State, in.Error, stackless.ErrChangedCode)
			}
			if i == 0 {
				t.Logf("%s parked: %s", in.ID, in.Error)
			}
		}
		for i := range 2 * m {
			in, err := c.s.Get(co, stableID(i))
			if err != nil {
				t.Fatal(err)
			}
			if in.State != durable.Done || string(in.Result) != "ok 5" {
				t.Errorf("%s: %v, result %q, error %q; want done, \"ok 5\"", in.ID, in.State, in.Result, in.Error)
			}
		}
	})
	for id, sum := range snap() {
		if sum != atKill[id] {
			t.Errorf("%s: snapshot changed after worker A was killed (md5 %s, was %s): worker B committed a step", id, sum, atKill[id])
		}
	}
	for _, e := range append(a.failures(), b.failures()...) {
		t.Errorf("a worker exited on its own: %s", e)
	}
}
