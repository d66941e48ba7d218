// Package echoload is the load client of every echo benchmark: N
// connections to a server on 127.0.0.1, each sending a fixed-size message
// and waiting for its echo before sending the next (ping-pong), for a fixed
// duration or a fixed number of requests.
//
// The client runs in a child process, the running binary re-executed with
// an environment variable that [MaybeRunChild] recognises, so that the
// server's process does only the server's work: its CPU time over the
// client's measurement window (getrusage(RUSAGE_SELF), user plus system)
// divided by the requests completed in it is the server CPU per request,
// the figure servers are compared on. On a small machine a loopback echo
// test is bound by the client and the kernel, so requests per second alone
// say little about the server.
//
// A binary that uses the package calls MaybeRunChild first thing in main or
// TestMain:
//
//	func TestMain(m *testing.M) {
//		echoload.MaybeRunChild()
//		os.Exit(m.Run())
//	}
//
// and a benchmark starts its server, then the load, and serves until the
// load is done:
//
//	ld, err := echoload.Start(echoload.Config{Addr: addr, Conns: 100, Requests: int64(b.N)})
//	... serve until <-ld.Done() ...
//	res, err := ld.Wait()
//	b.ReportMetric(res.ReqPerSec(), "req/s")
//	b.ReportMetric(res.CPUPerReqMicros(), "us-cpu/req")
//
// With [Config.HTTP] set the same client speaks HTTP/1.1 instead: each
// request is a keep-alive GET, answered once the whole response has
// arrived, so that an HTTP server is measured the same way.
//
// Besides CPU time, the result counts the read and write system calls the
// server's process made in the window ([Result.ServerReads],
// [Result.ServerWrites], from /proc/self/io).
//
// The window opens once every connection is established (the client then
// waits until the parent has taken its starting figures) and closes when the
// last request has been answered, so connection setup and teardown are not
// measured. Every run is bounded in time: the child gives up, and the parent
// kills it, after [Config.Timeout].
package echoload
