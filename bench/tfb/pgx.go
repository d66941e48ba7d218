package tfb

import (
	"context"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The database work of the pgx rows, shared by the stock-driver cohttp
// server (pgx on conet conns, stackful only), net/http and fasthttp (pgx on
// goroutines). Multiple queries and updates are pgx batches: pipelined,
// like the native client's.

func pgxWorld(ctx context.Context, p *pgxpool.Pool) (World, error) {
	var w World
	err := p.QueryRow(ctx, worldSQL, randomID()).Scan(&w.ID, &w.RandomNumber)
	return w, err
}

func pgxRead(ctx context.Context, p *pgxpool.Pool, n int, sorted bool) ([]World, error) {
	ids := make([]int64, n)
	randomIDs(ids, sorted)
	b := &pgx.Batch{}
	for _, id := range ids {
		b.Queue(worldSQL, id)
	}
	res := p.SendBatch(ctx, b)
	worlds := make([]World, n)
	for i := range worlds {
		if err := res.QueryRow().Scan(&worlds[i].ID, &worlds[i].RandomNumber); err != nil {
			res.Close()
			return nil, err
		}
	}
	return worlds, res.Close()
}

func pgxFortunes(ctx context.Context, p *pgxpool.Pool) ([]Fortune, error) {
	rows, err := p.Query(ctx, fortuneSQL)
	if err != nil {
		return nil, err
	}
	fs := make([]Fortune, 0, 16)
	for rows.Next() {
		var f Fortune
		if err := rows.Scan(&f.ID, &f.Message); err != nil {
			rows.Close()
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, rows.Err()
}

func pgxUpdate(ctx context.Context, p *pgxpool.Pool, n int) ([]World, error) {
	worlds, err := pgxRead(ctx, p, n, true)
	if err != nil {
		return nil, err
	}
	b := &pgx.Batch{}
	for i := range worlds {
		worlds[i].RandomNumber = randomID()
		b.Queue(updateSQL, worlds[i].ID, worlds[i].RandomNumber)
	}
	return worlds, p.SendBatch(ctx, b).Close()
}

// An answer is what the pgx handlers produce: a content type and a body,
// or an error.
type answer struct {
	ctype string
	body  []byte
	err   error
}

// pgxAnswer runs the test of path against p.
func pgxAnswer(ctx context.Context, p *pgxpool.Pool, path string, uri []byte) (answer, bool) {
	switch path {
	case "/db":
		w, err := pgxWorld(ctx, p)
		return answer{ContentJSON, AppendWorld(nil, w), err}, true
	case "/queries":
		ws, err := pgxRead(ctx, p, QueriesParam(uri), false)
		return answer{ContentJSON, AppendWorlds(nil, ws), err}, true
	case "/fortunes":
		fs, err := pgxFortunes(ctx, p)
		return answer{ContentHTML, AppendFortunes(nil, fs), err}, true
	case "/updates":
		ws, err := pgxUpdate(ctx, p, QueriesParam(uri))
		return answer{ContentJSON, AppendWorlds(nil, ws), err}, true
	}
	return answer{}, false
}

// The cohttp stackful server with pgx: the handlers run on the
// connections' coroutines, and each one's database work runs on a worker
// of the env's offload pool (stackful.Co.Offload) while the coroutine
// waits on the loop; a gate, a cosync.Semaphore of the pool's size, admits
// as many calls as the pool has conns, so that no worker waits for a conn.
//
// pgx cannot run on the coroutine itself, even on conet conns behind the
// gate (client/gate's fast path, which this server used before): it waits
// in Go's scheduler where no configuration reaches. pgxpool's Acquire
// waits in a select while it dials a conn (puddle's initResourceValue) or
// pings one idle for a second; pgconn, when a write has taken 15 ms of
// wall time (a loaded machine, a GC), moves the conn's reads to a
// goroutine of its own and makes the caller wait on a sync.Cond for them.
// Each froze the loop, for a round trip or a connection start, and for
// seconds around a database restart. On a worker they cost nothing but
// the worker.
//
// The cost is an offload round trip per request (two cross-thread
// wake-ups) and the driver's I/O through Go's poller rather than the loop
// (docs/tfb.md has the CPU per request against the old fast path). Each
// call is bounded by pg.DefaultQueryTimeout and each dial by
// pg.DefaultConnectTimeout (unless the URL's connect_timeout says
// otherwise), as the native client is, so that a hung database answers
// errors rather than holding the gate for good.
type conetServer struct {
	pool *pgxpool.Pool
	gate *cosync.Semaphore
	wait *cohttp.WaitHandler
}

func (s *conetServer) router(w *cohttp.ResponseWriter, r *cohttp.Request) {
	w.AddHeader("Server", ServerHeader)
	switch string(r.Path()) {
	case "/plaintext":
		w.AddHeader("Content-Type", ContentText)
		w.WriteString(HelloWorld)
	case "/json":
		w.AddHeader("Content-Type", ContentJSON)
		w.Write(AppendMessage(nil))
	case "/db", "/queries", "/fortunes", "/updates":
		w.Wait(s.wait)
	default:
		w.WriteHeader(404)
	}
}

func (s *conetServer) query(co *stackful.Co, w *cohttp.ResponseWriter, r *cohttp.Request) {
	if err := s.gate.Acquire(co, 1); err != nil {
		fail(w, err)
		return
	}
	// The request stays in its buffer while the coroutine waits.
	path, uri := string(r.Path()), r.URI()
	var a answer
	co.Offload(func() {
		ctx, cancel := context.WithTimeout(context.Background(), pg.DefaultQueryTimeout)
		a, _ = pgxAnswer(ctx, s.pool, path, uri)
		cancel()
	})
	s.gate.Release(1)
	if a.err != nil {
		fail(w, a.err)
		return
	}
	w.AddHeader("Content-Type", a.ctype)
	w.Write(a.body)
}

// stackfulOnly is the frame constructor of a WaitHandler that only the
// stackful server runs: pgx cannot run as a generated frame.
func stackfulOnly(w *cohttp.ResponseWriter, r *cohttp.Request) *noFrame { return &noFrame{} }

type noFrame struct{ stackless.Base }

func (*noFrame) Step(*stackless.Task) stackless.Status {
	panic("tfb: the pgx handler runs on stackful coroutines only")
}
