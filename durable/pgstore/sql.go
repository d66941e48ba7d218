package pgstore

import (
	"strings"

	"github.com/cogen-go/cogen/client/pg"
)

// The task states of the state column. A row in any other state (written
// by a newer library or by hand) is never claimed and is reported as it
// is.
const (
	stateRunning  = "running"
	stateSleeping = "sleeping"
	stateWaiting  = "waiting"
	stateDone     = "done"
	stateFailed   = "failed"
	stateParked   = "parked"
)

// Times cross the wire as microseconds since the Unix epoch (int8, binary
// both ways): no text timestamp is parsed. A due parameter is NULL for
// none and math.MinInt64 (dueNow) for the database's now().
const (
	dueParam = `(CASE WHEN $N::bigint IS NULL THEN NULL WHEN $N::bigint = -9223372036854775807 - 1 THEN now()
		ELSE 'epoch'::timestamptz + $N::bigint * interval '1 microsecond' END)`
	leaseParam = `now() + $N::bigint * interval '1 millisecond'`
)

func withParam(tmpl, n string) string { return strings.ReplaceAll(tmpl, "$N", n) }

func micros(col string) string { return `(extract(epoch FROM ` + col + `) * 1000000)::bigint` }

// The statements, prepared on every conn of the pool ("S." is the
// schema).
var stmtSQL = []pg.StmtDef{
	// create: $1 id, $2 name, $3 snapshot, $4 due.
	{Name: "pgstore_create", SQL: `INSERT INTO S.tasks (id, name, state, snapshot, due)
		VALUES ($1, $2, 'running', $3, ` + withParam(dueParam, "$4") + `)
		ON CONFLICT (id) DO NOTHING`},

	// claim: $1 worker, $2 lease (ms), $3 limit. The due tasks not held
	// by a live lease (an owner without a lease time holds none), earliest
	// due first, skipping rows that a concurrent claim has locked. Two
	// index scans, so that neither passes over the tasks that live leases
	// hold: the free tasks in due order (tasks_free), the expired leases
	// in expiry order (tasks_leased); the $3 earliest due of both are
	// claimed (the others they locked are unlocked when the statement
	// ends). One row per (task, queued signal), or one with NULL signal
	// columns; the snapshot is on a task's first row only.
	{Name: "pgstore_claim", SQL: `WITH free AS (
		SELECT id, due FROM S.tasks
		WHERE state IN ('running', 'sleeping', 'waiting') AND (owner IS NULL OR lease_until IS NULL)
			AND due <= now()
		ORDER BY due LIMIT $3 FOR UPDATE SKIP LOCKED),
	expired AS (
		SELECT id, due FROM S.tasks
		WHERE state IN ('running', 'sleeping', 'waiting') AND owner IS NOT NULL AND lease_until < now()
			AND due <= now()
		ORDER BY lease_until LIMIT $3 FOR UPDATE SKIP LOCKED),
	d AS (
		SELECT id FROM (SELECT * FROM free UNION ALL SELECT * FROM expired) x ORDER BY due LIMIT $3),
	c AS (
		UPDATE S.tasks t SET owner = $1, lease_until = ` + withParam(leaseParam, "$2") + `
		FROM d WHERE t.id = d.id
		RETURNING t.id, t.name, t.snapshot, t.seq, t.due)
	SELECT c.id, c.name,
		CASE WHEN row_number() OVER (PARTITION BY c.id ORDER BY s.id) = 1 THEN c.snapshot END,
		c.seq, s.id, s.name, s.value
	FROM c LEFT JOIN S.signals s ON s.task_id = c.id
	ORDER BY c.due, c.id, s.id`},

	// commit: $1 id, $2 worker, $3 seq, $4 snapshot (NULL keeps it), $5
	// state (a Done task's snapshot is dropped), $6 due, $7 wait name, $8
	// release, $9 lease (ms), $10 result, $11 error, $12 consumed signal
	// ids (int8[] in text). Fenced by owner and seq (not by the lease's
	// expiry: the contract lets a worker whose lease ran out commit as
	// long as nobody claimed the task); the consumed signals are deleted
	// only if the row changed.
	{Name: "pgstore_commit", SQL: `WITH u AS (
		UPDATE S.tasks SET snapshot = CASE WHEN $5 = 'done' THEN NULL ELSE COALESCE($4, snapshot) END,
			seq = seq + 1, state = $5,
			due = ` + withParam(dueParam, "$6") + `, wait_name = $7,
			owner = CASE WHEN $8::bool THEN NULL ELSE owner END,
			lease_until = CASE WHEN $8::bool THEN NULL ELSE ` + withParam(leaseParam, "$9") + ` END,
			result = $10, error = $11, updated = now()
		WHERE id = $1 AND owner = $2 AND seq = $3
		RETURNING id),
	d AS (DELETE FROM S.signals WHERE id = ANY($12::bigint[]) AND task_id IN (SELECT id FROM u))
	SELECT count(*) FROM u`},

	// wake: $1 id, $2 the seq the commit wrote. Run after a Waiting
	// commit, in its transaction, as a statement of its own: a task whose
	// signal was queued while it ran is due now. Its own statement sees
	// every signal committed before the commit locked the row; a Signal
	// that comes later waits for that lock (see signal) and then finds
	// the task waiting.
	{Name: "pgstore_wake", SQL: `UPDATE S.tasks t SET due = now()
		WHERE t.id = $1 AND t.seq = $2 AND t.state = 'waiting' AND t.due IS NULL
			AND EXISTS (SELECT 1 FROM S.signals s WHERE s.task_id = t.id AND s.name = t.wait_name)`},

	// release: $1 worker, $2 ids (text[] in text).
	{Name: "pgstore_release", SQL: `UPDATE S.tasks SET owner = NULL, lease_until = NULL
		WHERE id = ANY($2::text[]) AND owner = $1`},

	// release_worker: $1 worker. Every lease the worker name holds (the
	// state and owner conditions let it use tasks_leased). Returns the ids.
	{Name: "pgstore_release_worker", SQL: `UPDATE S.tasks SET owner = NULL, lease_until = NULL
		WHERE state IN ('running', 'sleeping', 'waiting') AND owner IS NOT NULL AND owner = $1
		RETURNING id`},

	// renew: $1 worker, $2 lease (ms), $3 ids (text[] in text). Returns
	// the ids renewed.
	{Name: "pgstore_renew", SQL: `UPDATE S.tasks SET lease_until = ` + withParam(leaseParam, "$2") + `
		WHERE id = ANY($3::text[]) AND owner = $1
		RETURNING id`},

	// signal: $1 task id, $2 name, $3 value. The task's row is locked
	// whatever its state (an UPDATE that may change nothing), so that a
	// Signal and a commit of the same task are serialized; a task waiting
	// for this name becomes due. The signal is queued unless the task is
	// Done or Failed. Returns the task's state and the signal's id (NULL
	// when not queued); no row when the task does not exist.
	{Name: "pgstore_signal", SQL: `WITH t AS (
		UPDATE S.tasks SET due = CASE WHEN state = 'waiting' AND wait_name = $2 AND due IS NULL
			THEN now() ELSE due END
		WHERE id = $1 RETURNING id, state),
	i AS (INSERT INTO S.signals (task_id, name, value)
		SELECT $1, $2, $3 FROM t WHERE t.state NOT IN ('done', 'failed') RETURNING id)
	SELECT t.state, i.id FROM t LEFT JOIN i ON true`},

	// get: $1 task id.
	{Name: "pgstore_get", SQL: `SELECT name, state, seq, result, error, owner, wait_name, ` +
		micros("due") + `, ` + micros("lease_until") + `,
		(SELECT count(*) FROM S.signals s WHERE s.task_id = t.id)
		FROM S.tasks t WHERE id = $1`},

	// delete: $1 task id. Deletes the task if it has ended; returns how
	// many rows it deleted and the task's state before (NULL: no task).
	{Name: "pgstore_delete", SQL: `WITH d AS (DELETE FROM S.tasks
			WHERE id = $1 AND state IN ('done', 'failed', 'parked') RETURNING id)
		SELECT (SELECT count(*) FROM d), (SELECT state FROM S.tasks WHERE id = $1)`},

	// delete_signals: $1 task id. Run after delete in the same
	// transaction, in a snapshot of its own: it sees the signals that a
	// Signal committed while delete waited for the task's row (a later
	// Signal finds no task and queues nothing).
	{Name: "pgstore_delete_signals", SQL: `DELETE FROM S.signals
		WHERE task_id = $1 AND NOT EXISTS (SELECT 1 FROM S.tasks WHERE id = $1)`},

	// list: $1 state ('' for any), $2 after, $3 max. The columns are
	// get's, then the id.
	{Name: "pgstore_list", SQL: `SELECT name, state, seq, result, error, owner, wait_name, ` +
		micros("due") + `, ` + micros("lease_until") + `,
		(SELECT count(*) FROM S.signals s WHERE s.task_id = t.id), id
		FROM S.tasks t WHERE ($1 = '' OR state = $1) AND id COLLATE "C" > $2
		ORDER BY id COLLATE "C" LIMIT $3`},
}

// appendTextArray appends the text form of a text[] holding ss.
func appendTextArray(b []byte, ss []string) []byte {
	b = append(b, '{')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		for j := 0; j < len(s); j++ {
			if s[j] == '"' || s[j] == '\\' {
				b = append(b, '\\')
			}
			b = append(b, s[j])
		}
		b = append(b, '"')
	}
	return append(b, '}')
}
