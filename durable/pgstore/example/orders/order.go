package main

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

//go:generate go tool cogen

// Order bills lines lines of order id, one step each, then waits for the
// "paid" signal, whose first byte is a tip, and records the total as its
// result (in decimal). The running total is a local that the loop reaches
// through a pointer: the snapshot carries both, so a task resumed
// elsewhere adds to the same total.
//
// Each line's effect (a row of the ledger table) is recorded under the
// step's key, taken right after a checkpoint: a step re-run after a crash
// asks again with the same key, and the ledger keeps one row. The total
// is added only once the row is recorded, after the checkpoints of
// Ledger's poll; a crash before the add resumes from one of them, with
// the total as it was before the line.
//
//co:stackless durable
func Order(co *stackful.Co, id durable.ID, lines int, nap time.Duration) {
	total := 0
	p := &total
	for line := 1; line <= lines; line++ {
		key := durable.StepKey(id)
		amount := Price(id, line)
		for !Ledger.Record(key, id, line, amount) {
			co.Gosched() // a checkpoint while the writer inserts the row
		}
		*p += amount
		if line%2 == 0 {
			co.Sleep(nap) // a checkpoint with a due time
		} else {
			co.Gosched() // a checkpoint: committed, then on
		}
	}
	tip := durable.Receive(co, id, "paid") // waits as a row, not in memory
	if len(tip) > 0 {
		*p += int(tip[0])
	}
	durable.SetResult(id, []byte(strconv.Itoa(total)))
}

// Price is the amount of line of order id: 10 to 99, the same in every
// process.
func Price(id durable.ID, line int) int {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d", id, line)
	return 10 + int(h.Sum32()%90)
}

// Tip is the tip that -start sends with order id's "paid" signal.
func Tip(id durable.ID) byte {
	h := fnv.New32a()
	h.Write([]byte(id))
	return byte(1 + h.Sum32()%9)
}

// Expected is the total of order id with lines lines, as an
// uninterrupted run computes it.
func Expected(id durable.ID, lines int) int {
	t := int(Tip(id))
	for line := 1; line <= lines; line++ {
		t += Price(id, line)
	}
	return t
}

// Ledger records the workflows' ledger rows; the worker sets it up before
// it runs tasks.
var Ledger *ledger

// LedgerDDL creates the ledger table in schema (a quoted identifier).
func LedgerDDL(schema string) string {
	return fmt.Sprintf(`CREATE SCHEMA IF NOT EXISTS %[1]s;
		CREATE TABLE IF NOT EXISTS %[1]s.ledger (step_key text PRIMARY KEY,
			order_id text NOT NULL, line int NOT NULL, amount int NOT NULL)`, schema)
}

// A ledger inserts rows (insert ... on conflict (step_key) do nothing)
// from a coroutine of its own, for workflows that ask with Record and
// poll at their checkpoints: a durable function cannot wait on a
// connection (what it waits on must travel with its snapshot), so the
// I/O is another coroutine's.
type ledger struct {
	mu     sync.Mutex
	queue  []row
	queued map[string]bool
	done   map[string]bool
}

type row struct {
	key, order   string
	line, amount int
}

func newLedger() *ledger {
	return &ledger{queued: map[string]bool{}, done: map[string]bool{}}
}

// Record reports whether the row under key is in the table, and queues
// it if it is not. Once it has reported true for a key it forgets the
// key (a step asks until the first true, then moves on): a step re-run
// later asks the table again, which keeps the row it has.
func (l *ledger) Record(key string, id durable.ID, line, amount int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done[key] {
		delete(l.done, key)
		return true
	}
	if !l.queued[key] {
		l.queued[key] = true
		l.queue = append(l.queue, row{key, string(id), line, amount})
	}
	return false
}

// run inserts the queued rows in pipelined batches until stop returns
// true, dialling again after an error (the failed batch is sent again).
func (l *ledger) run(co *stackful.Co, cfg pg.Config, schema string, stop func() bool) {
	var c *pg.Conn
	var st *pg.Stmt
	var batch []row
	var rows pg.Rows
	sql := `INSERT INTO ` + schema + `.ledger (step_key, order_id, line, amount)
		VALUES ($1, $2, $3::int, $4::int) ON CONFLICT (step_key) DO NOTHING`
	for !stop() {
		if len(batch) == 0 {
			l.mu.Lock()
			n := min(len(l.queue), 200)
			batch = append(batch, l.queue[:n]...)
			l.queue = l.queue[n:]
			l.mu.Unlock()
		}
		if len(batch) == 0 {
			co.Sleep(2 * time.Millisecond)
			continue
		}
		err := error(nil)
		if c == nil {
			if c, err = pg.Connect(co, cfg); err == nil {
				st, err = c.Prepare(co, "ledger", sql)
			}
		}
		for _, r := range batch {
			if err == nil {
				err = c.Queue(st, pg.Text(r.key), pg.Text(r.order), pg.Int(int64(r.line)), pg.Int(int64(r.amount)))
			}
		}
		if err == nil {
			err = c.Send(co)
		}
		for range batch {
			if err == nil {
				err = c.Next(co, &rows)
			}
		}
		if err != nil {
			if c != nil {
				c.Close(co)
				c = nil
			}
			co.Sleep(100 * time.Millisecond)
			continue
		}
		l.mu.Lock()
		for _, r := range batch {
			delete(l.queued, r.key)
			l.done[r.key] = true
		}
		l.mu.Unlock()
		batch = batch[:0]
	}
	if c != nil {
		c.Close(co)
	}
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
