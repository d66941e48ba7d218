// Package cohttp is the module's HTTP/1.1 server machinery: a server that
// runs in both coroutine models from one source, and what every HTTP server
// of the module shares — one set of limits against hostile clients
// ([Limits]), net/http's server semantics around http.ReadRequest for the
// servers built on it ([RequestReader]: examples/http and the benchmarks'
// hello loops), and net/http's error answers, byte for byte ([Error]).
//
// # The server
//
// [ServeStackful] and [ServeStackless] serve a [Handler] on a listening
// socket, one connection per stackful coroutine or per stackless task
// ([ServeStackfulGroup] and [ServeStacklessGroup]: one server per loop of
// a group). Both run server.go: functions marked //co:stackless that cogen
// rewrites into the frames of server_cogen.go, and that run unchanged on a
// stackful coroutine. A connection reads into a buffer of its own (4 KiB,
// grown to fit a long head or a body within the limits, shrunk back
// after), parses the request head in place, dechunks a body in place,
// calls the handler with the whole request, and answers the requests a
// pipelined batch holds in one write (up to 64 KiB of answers at a time).
// Keep-alive, Content-Length and chunked bodies (trailers included),
// Expect: 100-continue, HEAD, HTTP/1.0 keep-alive, OPTIONS * and graceful
// shutdown ([Server.Drain], [Server.Shutdown]) behave as in net/http's
// server.
//
// # Handlers, and handlers that wait
//
// A [Handler] is a plain function called on the loop with the whole
// request read; it must not wait, since every connection of the loop waits
// while it runs. Routing, hello-world and echo work, which is what the
// benchmarks measure, needs nothing more, and costs no switch: the answers
// of a pipelined batch are built one after the other and written together.
//
// A request whose answer needs waiting (a database, another service, a
// timer) is handed by the Handler to a [WaitHandler] with
// [ResponseWriter.Wait]. A WaitHandler is written once, as a
// //co:stackless function taking the coroutine handle, and built with
// [Waiting] from that function and the frame constructor cogen generated
// from it: the stackful server calls the function on the connection's
// coroutine, the stackless server calls the frame as a child of the
// connection's task. Either way the contract is the same:
//
//   - while it waits, the loop serves every other connection;
//   - the requests of its own connection wait their turn: answers keep
//     the order of the requests, and none is read meanwhile (the client's
//     pipelined bytes wait in the buffer or in TCP's flow control);
//   - the answers a pipelined batch had before it are written before it
//     runs (one write more for a batch with a waiting request; none for
//     one without);
//   - a panic in it is answered 500 with Connection: close, as one in a
//     Handler; r and w stay valid until it returns.
//
// Between its waits a WaitHandler runs on the loop like a Handler, so it
// must wait only through the handle (its waiting methods, runtime/cosync,
// coroutine-native clients): a call that blocks in Go (a sync.Mutex, a
// channel, a blocking system call, net/http's client) freezes the loop.
//
// A guard watches the handlers: a Handler call, or a WaitHandler between
// its waits, that keeps its loop longer than [Limits.SlowHandler] (50 ms by
// default, well under the stall watchdog's 1 s) is reported once, while it
// runs, with its route and its goroutine's stack ([SlowHandlerReport]), on
// [Limits.ErrorLog], where the accept errors the server retries (EMFILE
// and the like) go too. It measures wall time: on a machine short of CPU,
// a handler whose thread is descheduled that long is reported too.
//
// The guard never slows the loop it watches. The loop pays a few atomic
// operations per handler call and per step of a connection, and a map
// update under a lock per WaitHandler start and end: O(1), whatever the
// number of WaitHandlers in flight. The guard holds that lock only to
// copy a route, never while it looks at goroutines, and logs holding
// nothing. It looks at goroutines only when the loop has made no progress
// for longer than the threshold while WaitHandlers are in flight: with the
// goroutine profile (which stops the world only briefly), and, when two
// such looks in a row find a WaitHandler running outside its waits, with
// a traceback of all goroutines to find which (runtime.Stack, which stops
// the world for its duration: at most twice per stall). A WaitHandler
// blocked in Go is reported then; one computing between its waits (or
// whose thread the machine has descheduled) once it has kept the loop for
// a second. A loop merely busy
// with many connections makes progress and is not looked at; an idle
// loop, whatever the length of the gap, is not counted against the
// handler after it.
//
// # net/http as the oracle
//
// Every server is tested against net/http's http.Server with the same raw
// request byte streams (internal/httpdiff): status codes, the number and
// order of responses, Connection headers and whether the connection stays
// open must match, or the test lists the difference with its reason; random
// streams run under go test -fuzz. One difference is on purpose: a request
// with both Content-Length and Transfer-Encoding is answered (chunked wins,
// as in net/http) with Connection: close, and the connection closes after
// the answer, as RFC 9112 section 6.1 requires; net/http keeps it open, so
// a front end that framed the request by its Content-Length would see the
// rest of the stream differently. A target without a path (GET http://a;
// GET a:80, which url.ParseRequestURI takes as opaque) reaches the handler
// with an empty [Request.Path], as net/http's handlers see an empty
// URL.Path; a router that means to answer as http.ServeMux redirects it to
// "/". The same package's hostile-client tests
// (oversized heads, slowloris, idle connections, floods beyond the cap) run
// against every server.
//
// # Limits
//
// Zero values are safe defaults: 1 MiB of request head (then 431 and
// close), 10 s to read a head, 30 s to read a whole request (head and
// body; then the connection closes, with 408 once the body is being read),
// 30 s to write a batch of answers (a client that does not read them is
// disconnected), 60 s of keep-alive idleness, 4 MiB of body (then 413 and
// close, or an error for an http.Handler reading past it), 32 MiB of
// bodies buffered by one server at once, and 10,000 connections per env or
// loop (then accepting pauses). A negative value turns a limit off.
//
// The server reads a body whole before calling the handler, so that a
// handler that does not wait sees all of it in the buffer. The price is
// memory: what a connection buffers is bounded by MaxBodyBytes, and what
// all of them buffer together by the body budget ([Limits.BodyBudget]),
// which follows the bytes received, not the lengths declared. A body's
// buffer starts at the connection's 4 KiB and doubles only when full, the
// new buffer's size taken from the budget; a buffer dropped (grown out
// of, or shrunk back once the body is answered) stays charged until the
// collector has freed it. So a client that declares a large body and
// sends nothing holds nothing but its 4 KiB, one that sends part of it
// and stalls holds at most twice what it sent, and all of them together,
// with the garbage they left, hold at most the budget: the memory the
// server spends on bodies is the budget plus 4 KiB per connection,
// whatever the clients declare. When the budget is spent, a connection
// stops reading its body (TCP's flow control holds the client) until
// budget comes back (a body answered, or garbage collected: the server
// starts a collection when garbage holds what a connection waits for),
// within its ReadTimeout. Bodies cannot all wait for each other: the
// budget keeps a reserve, what the largest of the bodies being grown
// needs whole (at most MaxBodyBytes and a head, and the budget), that
// partial buffers leave free; a growth that completes its body needs no
// reserve, and when a growth is refused, one body at a time (the
// finisher) takes its whole size at once and so completes. So a stalled
// upload holds only its share, and small bodies beside it do not wait
// for its read timeout. Once [Server.Shutdown] has returned, the whole
// budget is back: it waits for a collection if garbage holds some. Streaming bodies
// to the handler would bound memory per connection instead, at the price
// of a handler that reads, and therefore waits; the http.Handler servers
// do that, and need no budget.
//
// # Costs
//
// The server allocates per connection (its state and buffers), not per
// request: parsing keeps offsets into the buffer, the response is built in
// a reused buffer, the Date header is formatted once a second. A request
// costs one read and one write system call when it arrives alone, fewer
// per request when pipelined. A RequestReader holds a 4 KiB read buffer and
// enforces the head limit under it, so a client sending an endless head
// costs the server the limit in reading time and no more memory than the
// buffer and the header map http.ReadRequest builds.
package cohttp
