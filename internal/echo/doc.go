// Package echo is the echo connection handler of the examples and
// benchmarks, written once as ordinary stackful code and run three ways on
// the same event loop:
//
//   - [Echo], the source: a stackful coroutine function marked
//     //co:stackless, so that cogen derives its stackless twin;
//   - [HandEchoFrame], the same function written by hand as a stackless
//     frame, in exactly the shape cogen generates: the reference the
//     generator's output is compared with, in the golden tests and in
//     BenchmarkEchoStackless;
//   - the generated frame, once cogen has run (echo_cogen.go).
//
// [ServeStackful] is the accept loop that runs Echo itself per connection
// on an env (stackful.Env.ServeTCP would add a frame to adapt Echo's
// result, and so grow each idle connection's stack past 2 KiB); the
// stackless servers are stackless.ServeTCP's. [ServeGoroutines] is the
// baseline with Go's net package. The echo benchmarks, driven by
// internal/echoload, compare them on server CPU per request:
//
//	go test -run NONE -bench Echo -benchtime 200000x ./internal/echo
package echo
