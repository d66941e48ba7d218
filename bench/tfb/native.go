package tfb

import (
	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// The cohttp servers with the coroutine-native client (client/pg): the
// handlers that query are written once, below, as //co:stackless functions;
// the stackful server runs them on its connections' coroutines and the
// stackless server runs the frames cogen generated from them
// (native_cogen.go). Each loop has its own pool (nativePools).

// nativeStmts are the statements every pool conn prepares.
var nativeStmts = []pg.StmtDef{{Name: "world", SQL: worldSQL}, {Name: "update", SQL: updateSQL}, {Name: "fortune", SQL: fortuneSQL}}

// nativeRouter answers the tests that do not wait and hands the others to
// the WaitHandlers of one source.
func nativeRouter(w *cohttp.ResponseWriter, r *cohttp.Request) {
	w.AddHeader("Server", ServerHeader)
	switch string(r.Path()) {
	case "/plaintext":
		w.AddHeader("Content-Type", ContentText)
		w.WriteString(HelloWorld)
	case "/json":
		w.AddHeader("Content-Type", ContentJSON)
		w.Write(AppendMessage(nil))
	case "/db":
		w.Wait(nativeDBHandler)
	case "/queries":
		w.Wait(nativeQueriesHandler)
	case "/fortunes":
		w.Wait(nativeFortunesHandler)
	case "/updates":
		w.Wait(nativeUpdatesHandler)
	default:
		w.WriteHeader(404)
	}
}

var (
	nativeDBHandler       = cohttp.Waiting(nativeDB, newNativeDBFrame)
	nativeQueriesHandler  = cohttp.Waiting(nativeQueries, newNativeQueriesFrame)
	nativeFortunesHandler = cohttp.Waiting(nativeFortunes, newNativeFortunesFrame)
	nativeUpdatesHandler  = cohttp.Waiting(nativeUpdates, newNativeUpdatesFrame)
)

// nativePool is the pool of the server's loop (the servers here run one
// loop each).
var nativePool *pg.Pool

// fail answers 500 with the error.
func fail(w *cohttp.ResponseWriter, err error) {
	w.WriteHeader(500)
	w.AddHeader("Content-Type", ContentText)
	w.WriteString(err.Error())
}

// nativeDB answers the single query test: one random world row.
//
//co:stackless
func nativeDB(co *stackful.Co, w *cohttp.ResponseWriter, r *cohttp.Request) {
	c, err := nativePool.Acquire(co)
	if err != nil {
		fail(w, err)
		return
	}
	c.Queue(c.Stmt("world"), pg.Int(randomID()))
	err = c.Send(co)
	rows := c.Rows()
	if err == nil {
		err = c.Next(co, rows)
	}
	var world World
	if err == nil {
		world, err = worldOf(rows)
	}
	nativePool.Release(co, c)
	if err != nil {
		fail(w, err)
		return
	}
	w.AddHeader("Content-Type", ContentJSON)
	w.Write(AppendWorld(nil, world))
}

// worldOf reads the world row of a result.
func worldOf(rows *pg.Rows) (World, error) {
	if rows.Len() != 1 {
		return World{}, errNoRow
	}
	id, err := rows.Int(0, 0)
	if err != nil {
		return World{}, err
	}
	n, err := rows.Int(0, 1)
	return World{id, n}, err
}

// nativeQueries answers the multiple queries test: n random rows, read
// with n pipelined queries (one write, one Sync).
//
//co:stackless
func nativeQueries(co *stackful.Co, w *cohttp.ResponseWriter, r *cohttp.Request) {
	worlds, err := nativeRead(co, QueriesParam(r.URI()), false)
	if err != nil {
		fail(w, err)
		return
	}
	w.AddHeader("Content-Type", ContentJSON)
	w.Write(AppendWorlds(nil, worlds))
}

// nativeRead reads n random world rows in one pipeline.
//
//co:stackless
func nativeRead(co *stackful.Co, n int, sorted bool) ([]World, error) {
	ids := make([]int64, n)
	randomIDs(ids, sorted)
	c, err := nativePool.Acquire(co)
	if err != nil {
		return nil, err
	}
	s := c.Stmt("world")
	for _, id := range ids {
		c.Queue(s, pg.Int(id))
	}
	err = c.Send(co)
	worlds := make([]World, n)
	rows := c.Rows()
	for i := 0; i < n && err == nil; i++ {
		err = c.Next(co, rows)
		if err == nil {
			worlds[i], err = worldOf(rows)
		}
	}
	nativePool.Release(co, c)
	return worlds, err
}

// nativeFortunes answers the fortunes test.
//
//co:stackless
func nativeFortunes(co *stackful.Co, w *cohttp.ResponseWriter, r *cohttp.Request) {
	c, err := nativePool.Acquire(co)
	if err != nil {
		fail(w, err)
		return
	}
	c.Queue(c.Stmt("fortune"))
	err = c.Send(co)
	rows := c.Rows()
	if err == nil {
		err = c.Next(co, rows)
	}
	fortunes := make([]Fortune, 0, rows.Len()+1)
	for i := 0; err == nil && i < rows.Len(); i++ {
		id, ierr := rows.Int(i, 0)
		err = ierr
		fortunes = append(fortunes, Fortune{id, rows.Text(i, 1)})
	}
	nativePool.Release(co, c)
	if err != nil {
		fail(w, err)
		return
	}
	w.AddHeader("Content-Type", ContentHTML)
	w.Write(AppendFortunes(nil, fortunes))
}

// nativeUpdates answers the updates test: n random rows read in one
// pipeline, then updated with new random numbers in a second one (ids in
// order, so that concurrent requests lock rows in the same order).
//
//co:stackless
func nativeUpdates(co *stackful.Co, w *cohttp.ResponseWriter, r *cohttp.Request) {
	worlds, err := nativeRead(co, QueriesParam(r.URI()), true)
	if err != nil {
		fail(w, err)
		return
	}
	c, err := nativePool.Acquire(co)
	if err != nil {
		fail(w, err)
		return
	}
	s := c.Stmt("update")
	for i := range worlds {
		worlds[i].RandomNumber = randomID()
		c.Queue(s, pg.Int(worlds[i].ID), pg.Int(worlds[i].RandomNumber))
	}
	err = c.Send(co)
	rows := c.Rows()
	for i := 0; i < len(worlds) && err == nil; i++ {
		err = c.Next(co, rows)
	}
	nativePool.Release(co, c)
	if err != nil {
		fail(w, err)
		return
	}
	w.AddHeader("Content-Type", ContentJSON)
	w.Write(AppendWorlds(nil, worlds))
}

var errNoRow = errorString("tfb: no such world row")

type errorString string

func (e errorString) Error() string { return string(e) }
