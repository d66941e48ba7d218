package pgstore

import (
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/pgstore/internal/chaosflow"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// TestBadRows gives a worker process task rows it cannot resume beside
// good ones: a NULL snapshot, an empty one, random bytes, a Flow snapshot
// with a byte flipped and one cut short. Each bad row ends Parked with an
// error and its bytes kept, the good workflows complete, and the worker
// never exits.
func TestBadRows(t *testing.T) {
	const good = 20
	c := newChaosRun(t, good, 2*time.Second)
	c.start(time.Millisecond)
	for step := range chaosflow.Steps {
		if chaosflow.Receives(step) {
			if err := parallel(good, func(co *stackful.Co, i int) error {
				return durable.Send(co, c.s, flowID(i), chaosflow.SignalName(step), []byte{signalValue(i, step)})
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	snap, err := stackless.SnapshotFrame(chaosflow.NewFlowFrame("bad-flip", time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), snap...)
	flipped[len(flipped)/2] ^= 0x40
	bad := map[durable.ID][]byte{
		"bad-empty":  {},
		"bad-random": []byte("\x93\x1f\xee\x00\x00\x00\x07garbage that is no snapshot at all"),
		"bad-flip":   flipped,
		"bad-short":  snap[:len(snap)-3],
	}
	inCo(t, func(co *stackful.Co) {
		for id, b := range bad {
			if err := c.s.Create(co, id, "chaosflow.Flow", b); err != nil {
				t.Fatal(err)
			}
		}
	})
	sqlExec(t, c.url, `INSERT INTO `+c.q+`.tasks (id, name, state, snapshot, due) VALUES ('bad-null', 'x', 'running', NULL, now())`)
	bad["bad-null"] = nil

	f := newFleet(t, "w", 1, "-url", c.url, "-schema", c.schema, "-lease", "2s", "-poll", "100ms")
	if !waitFor(60*time.Second, func() bool {
		return queryInt(t, c.url, `SELECT count(*) FROM `+c.q+`.tasks WHERE state IN ('done', 'parked')`) == int64(good+len(bad))
	}) {
		t.Fatalf("%d of %d tasks ended after 60 s", queryInt(t, c.url, `SELECT count(*) FROM `+c.q+`.tasks WHERE state IN ('done', 'parked')`), good+len(bad))
	}
	rows := query(t, c.url, `SELECT id, state, coalesce(error, ''), snapshot IS NULL, coalesce(length(snapshot), -1)::bigint FROM `+c.q+`.tasks WHERE id LIKE 'bad-%' ORDER BY id`)
	for i := range rows.Len() {
		id, state, msg := durable.ID(rows.Text(i, 0)), rows.Text(i, 1), rows.Text(i, 2)
		n, _ := rows.Int(i, 4)
		if state != "parked" || msg == "" || (bad[id] == nil) != (rows.Text(i, 3) == "t") || bad[id] != nil && n != int64(len(bad[id])) {
			t.Errorf("%s: %s %q, snapshot of %d bytes (had %d)", id, state, msg, n, len(bad[id]))
		}
		t.Logf("%s: %s", id, msg)
	}
	if n := queryInt(t, c.url, `SELECT count(*) FROM `+c.q+`.tasks WHERE state = 'done'`); n != good {
		t.Errorf("%d of %d good workflows done", n, good)
	}
	f.stop()
	for _, e := range f.failures() {
		t.Errorf("the worker exited on its own: %s", e)
	}
}
