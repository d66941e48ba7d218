//go:build unix

// Command cobench measures the coroutine models of this module side by
// side, in one run, and prints a table.
//
// Usage:
//
//	cobench [-quick | -long] [-peers] [-coroswitch] [-only groups] [-format markdown|json|csv] [-o file] [-svg file|off] [-memn n]
//
// With no flags it measures every group of rows, in about 3 minutes on two
// cores once built (5 from a cold build cache, a minute of it building
// client/gate for the db group):
//
//	switch  one round trip: stackful Resume+Yield, stackless Gosched through
//	        the ready queue, bare iter.Pull, goroutine+channel ping-pong, and
//	        a plain function call as the floor
//	create  create + run (one switch on the way) + release: stackful with
//	        each stack mode, stackless, goroutine
//	timers  timer add+cancel on the loop's wheel and with time.AfterFunc;
//	        100,000 coroutines sleeping one second in each model: the time
//	        to start them all and how late they wake (the loop models give
//	        their loop a turn every 100 starts, as an accept loop does); one 10 ms sleep at a
//	        time in each model and with time.Sleep, interleaved: the mean
//	        and p99 lateness of the wake-ups
//	durable stackless.Snapshot and stackless.Restore of a suspended task of
//	        each frame shape (internal/durabletest: one frame with two ints,
//	        with a 1 KiB []byte, with a 100-entry map; Ledger, three frames
//	        deep with maps, slices, shared and cyclic pointers, a time.Time),
//	        with the snapshot's size; and 1,000,000 suspended tasks of the
//	        smallest shape (100,000 with -quick) checkpointed to a file
//	        (snapshots length-prefixed through bufio, fsync) and restored
//	        from it, in a fresh process: tasks/s and MB/s each way, every
//	        restored task run and checked; the stackful model has no such
//	        row (a stack is not data)
//	memory  memory held per suspended coroutine, 100,000 of them (-memn
//	        changes the count; -long makes it 1,000,000), each mode in a
//	        fresh process; and server memory per idle echo connection
//	        (4,000 connections, one round trip made on each) of the
//	        stackful, stackless and Go net servers, against Go net
//	echo    64-byte echo on loopback with 100 and 1,000 connections of the
//	        one load client (internal/echoload): requests per second, server
//	        CPU per request and server read+write system calls per request,
//	        for stackful, stackless (generated and hand-written frames) and
//	        goroutine-per-connection servers, each in a fresh process
//	http    HTTP/1.1 hello with 100 keep-alive connections of the same
//	        client: stackful coroutines (on conet's net.Conn adapters, and
//	        on Co.Read/Co.Write) and cohttp's server in both models against
//	        net/http; then the same with a handler that waits 1 ms before
//	        answering (cohttp: a WaitHandler, hello.Wait, a timer on the
//	        loop; net/http: time.Sleep in the handler)
//	scale   a cross-loop hand-off (Submit from loop 0 to 1 and back) beside a
//	        goroutine channel ping-pong; the echo and HTTP loads (100
//	        connections) served at 1 loop and
//	        at N loops (N = cores, at least 2): loop.Group servers of both
//	        models (one SO_REUSEPORT listener per loop) beside Go's with
//	        GOMAXPROCS 1 and N; requests per second, server CPU per request
//	        and each model's N-loop/1-loop throughput ratio
//	db      GET round trips against a throwaway redis-server that cobench
//	        starts (a skipped row with the reason when none is installed), 50
//	        connections with one GET outstanding each: go-redis from
//	        goroutines and from stackful coroutines (conet conns), built
//	        from the nested module client/gate (with -quick, skipped rows), and the
//	        coroutine-native client client/resp in a stackful env and as
//	        generated stackless frames; round trips per second and
//	        redis-server's and the client's CPU per GET
//	tfb     TechEmpower's six test types (json, db, queries 1/20/500,
//	        fortunes, updates 20, plaintext pipelined 16 deep) against
//	        PostgreSQL (COGEN_PG_URL, or a throwaway server cobench starts;
//	        a skipped row with the reason without either), 256 connections (plaintext:
//	        16,384 or what the fd limit allows), run by the nested module
//	        bench/tfb: cohttp stackful and stackless with the
//	        coroutine-native client client/pg (one handler source), cohttp
//	        stackful with pgx on offload workers, and with -peers net/http and
//	        fasthttp with pgx pools; json and plaintext of both cohttp
//	        servers on io_uring too, where the kernel has it; requests per
//	        second, server CPU per request (noting the server's read(2) and
//	        write(2) calls per request), database CPU per request, p99
//	        latency. Only with -only=tfb, or
//	        in a full run with -peers (it builds a module and takes minutes;
//	        a full run without -peers shows a skipped row saying so)
//	durable-pg  durable workflows on PostgreSQL (COGEN_PG_URL, or a
//	        throwaway server), run by the nested module bench/durablepg:
//	        cogen's durable runner with durable/pgstore beside DBOS Transact
//	        for Go, 10-step workflows, 100 in flight; workflows per second,
//	        worker and server CPU per step, WAL and table bytes per step,
//	        recovery after a worker's SIGKILL; the runner's heap with
//	        10,000 to 1,000,000 workflows asleep in PostgreSQL. Only with
//	        -only=durable-pg
//
// With -peers the echo groups also measure the echo servers of gnet v2,
// cloudwego/netpoll and lesismal/nbio (each with one event loop or
// poller, and with one per CPU; netpoll runs its handlers on its goroutine
// pool, as it does by default) and the http group the hello servers of
// fasthttp and nbio's nbhttp (one poller, handlers on its task pool; and,
// for the waiting rows, the same after a time.Sleep of 1 ms), served the
// same load by the same client. netpoll writes with sendmsg, which
// /proc/self/io does not count: its rows have no system-call figure. They
// live in the nested module bench/peers, so that this module does not
// depend on them: cobench builds that module's binary (go build, which
// fetches the peers from the module proxy the first time) into a temporary directory and runs it as
// those rows' child process. -peers needs the source tree: run it from the
// repository.
//
// Every row gives its value and unit, its ratio to the base row of its
// measure and, as reference only, a figure from a public source (none is
// cited yet) or a fact ("not possible"): those are not measured in the run. One convention
// chooses the base, stated in the table's header: the Go way (goroutines,
// Go's net, net/http, time.Sleep or AfterFunc, go-redis on goroutines;
// iter.Pull where no goroutine row is measured) whenever the measure has
// one, else the stackless row.
//
// The table ends with the verdict, one line per group: the best row of the
// group's headline measure (its CPU per request for the loads, the round
// trip for switch...), and how many times better it is than the best row
// of each other model family (stackless, stackful, Go, peers), beyond or
// within the run's noise: the larger spread of the two rows' interleaved
// rounds or windows ((max - min) / value), 10 % where unknown, at least
// 25 % when the machine was overloaded. The last line answers in one line
// which model family is best in how many groups and by how much: "Overall:
// best is <family> in <n> of <m> groups (<group> <lead>×, ...); <family> in
// <n> (...)", each lead the group winner's over the next-best family, "~"
// when that lead is within the run's noise (the JSON's "overall"). Above the table, loud warnings say
// what makes the run's figures suspect: a load average above the cores at
// the start, a plain function call (the floor) slower than 3 ns, rows with
// a window that had to be retried. A group or row that cannot be measured
// here (no redis-server, no PostgreSQL, a build -quick leaves out) is a
// row of the table with no value and "skipped: <reason>" as its note.
//
// The chart is written on every run, to $TMPDIR/cobench.svg unless -svg
// names another file (-svg=off: none), and its path printed. It draws a
// block of bars per measure, with a value axis (ticks, their labels, the
// unit; a log axis when the values span more than 50×), colours bars by
// model family with a legend, outlines each measure's base, says for each
// measure whether lower or higher is better, and carries the load, the
// warnings, the overall line and the verdict.
//
// The micro benchmarks are the bodies in internal/bench, the same ones `go
// test -bench` runs in each package, run here with testing.Benchmark at a
// fixed benchtime, in interleaved rounds (the median is reported) so that
// every model sees the same load on a shared machine. Memory, sleepers,
// echo and HTTP rows each run in a child process (this binary re-executed),
// so that heaps, goroutines and CPU accounting do not mix; the echo load
// client is a grandchild.
//
// Flags:
//
//	-quick    a short run (about 20 s once built): fewer coroutines, short windows
//	-long     longer windows, more rounds, 1,000,000 coroutines for memory
//	-peers    also measure gnet, netpoll, nbio, fasthttp and nbhttp (built from bench/peers)
//	-wrk      also serve the HTTP hello load with wrk, TechEmpower's load
//	          generator (Debian's package wrk), as the client: requests/s,
//	          latency p50 and p99, server CPU per request, each note giving
//	          the built-in client's figure and the ratio (see wrk.go); the
//	          tfb group runs each workload with wrk too (tfb bench -wrk)
//	-coroswitch also measure the stackful switch and create rows in a
//	          build with the cogen_coroswitch tag (runtime/stackful on the
//	          raw runtime.coroswitch), built from the source tree; their
//	          notes give the ratio to iter.Pull measured in that build's
//	          process
//	-only     a comma-separated list of groups to run
//	-format   markdown (default), json or csv
//	-o        write the table to a file instead of standard output
//	-svg      where to write the bar chart (default $TMPDIR/cobench.svg; off: none)
//	-memn     the number of suspended coroutines per memory row
//
// Progress goes to standard error, so that standard output holds the table
// only: a line when each group (or the interleaved micro benchmarks of
// several groups) and each build of a nested module starts, a line when it
// finishes with its elapsed time, rows and skipped rows, a line per step
// (model, round, window), and a line every 10 s during a long step (on a
// terminal, one line rewritten in place).
package main
