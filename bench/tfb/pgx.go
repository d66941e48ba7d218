package tfb

import (
	"context"

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

// The cohttp stackful server with pgx through conet: the handlers run on
// the connections' hooked coroutines, pgx's conns are conet conns (every
// read and write waits on the loop), and every use of the pool holds the
// gate, a cosync.Semaphore of the pool's size, so that pgxpool never waits
// in Go's scheduler (see client/gate).
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
	co.EnableHook()
	if err := s.gate.Acquire(co, 1); err != nil {
		fail(w, err)
		return
	}
	a, _ := pgxAnswer(context.Background(), s.pool, string(r.Path()), r.URI())
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
