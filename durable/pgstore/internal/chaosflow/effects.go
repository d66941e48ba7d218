package chaosflow

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// EffectsDDL creates the tables the effects go to, in schema (quoted).
func EffectsDDL(schema string) string {
	return fmt.Sprintf(`CREATE SCHEMA IF NOT EXISTS %[1]s;
		CREATE TABLE IF NOT EXISTS %[1]s.effects (step_key text PRIMARY KEY, workflow text NOT NULL, step int NOT NULL, worker text NOT NULL);
		CREATE TABLE IF NOT EXISTS %[1]s.attempts (step_key text NOT NULL, workflow text NOT NULL, step int NOT NULL, worker text NOT NULL)`, schema)
}

// An Effects records the effects of workflow steps in PostgreSQL: each
// request inserts a row keyed by its step key, once (insert ... on
// conflict do nothing), and an attempt row every time. Requests come from
// the workflows (any loop, any goroutine); one coroutine writes them in
// batches, and a workflow polls Done at its checkpoints.
type Effects struct {
	mu     sync.Mutex
	queue  []request
	queued map[string]bool
	done   map[string]bool
}

type request struct {
	key, workflow string
	step          int
}

// NewEffects returns an empty Effects.
func NewEffects() *Effects {
	return &Effects{queued: map[string]bool{}, done: map[string]bool{}}
}

// Request queues the effect of step of workflow under key, unless it is
// queued or recorded already.
func (e *Effects) Request(key, workflow string, step int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done[key] || e.queued[key] {
		return
	}
	e.queued[key] = true
	e.queue = append(e.queue, request{key, workflow, step})
}

// Done reports whether the effect under key is recorded in the database.
func (e *Effects) Done(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.done[key]
}

func (e *Effects) take(max int) []request {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := min(len(e.queue), max)
	batch := append([]request(nil), e.queue[:n]...)
	e.queue = e.queue[n:]
	return batch
}

func (e *Effects) finish(batch []request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range batch {
		delete(e.queued, f.key)
		e.done[f.key] = true
	}
}

// Run writes the queued effects until stop returns true, reconnecting
// after errors (the batch that failed is written again).
func (e *Effects) Run(co *stackful.Co, cfg pg.Config, schema, worker string, stop func() bool) {
	var c *pg.Conn
	var batch []request
	var rows pg.Rows
	sql := fmt.Sprintf(`WITH a AS (INSERT INTO %[1]s.attempts (step_key, workflow, step, worker)
			SELECT k, w, s, $4 FROM unnest($1::text[], $2::text[], $3::int[]) AS u(k, w, s))
		INSERT INTO %[1]s.effects (step_key, workflow, step, worker)
			SELECT k, w, s, $4 FROM unnest($1::text[], $2::text[], $3::int[]) AS u(k, w, s)
		ON CONFLICT DO NOTHING`, schema)
	for !stop() {
		if len(batch) == 0 {
			batch = e.take(500)
		}
		if len(batch) == 0 {
			co.Sleep(2 * time.Millisecond)
			continue
		}
		if c == nil {
			var err error
			if c, err = pg.Connect(co, cfg); err != nil {
				c = nil
				co.Sleep(100 * time.Millisecond)
				continue
			}
		}
		var keys, wfs, steps []string
		for _, f := range batch {
			keys, wfs, steps = append(keys, f.key), append(wfs, f.workflow), append(steps, strconv.Itoa(f.step))
		}
		st, err := c.Prepare(co, "effects", sql)
		if err == nil {
			err = c.Queue(st, pg.Text(textArray(keys)), pg.Text(textArray(wfs)), pg.Text("{"+strings.Join(steps, ",")+"}"), pg.Text(worker))
		}
		if err == nil {
			err = c.Send(co)
		}
		if err == nil {
			err = c.Next(co, &rows)
		}
		if err != nil {
			c.Close(co)
			c = nil
			co.Sleep(100 * time.Millisecond)
			continue
		}
		e.finish(batch)
		batch = nil
	}
	if c != nil {
		c.Close(co)
	}
}

func textArray(ss []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// QuoteIdent quotes a PostgreSQL identifier.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
