// Package stackful is libco's coroutine semantics in Go, on the cogen event
// loop ([loop.Loop]).
//
// A coroutine ([Co]) is a function with a stack of its own that can suspend
// at any call depth: it can be thought of as a goroutine that runs only when
// another coroutine hands it the processor, and hands it back when it
// yields. An [Env] (libco's per-thread stCoRoutineEnv_t) owns an event loop,
// the call stack of coroutines with the main coroutine at its bottom, and the
// coroutines created on it; one coroutine of an env runs at a time, so they
// share data without locks.
//
// # Switching
//
// Every coroutine is a goroutine, and Resume and Yield switch between them
// with the Go runtime's coroutine switch (runtime.coroswitch, reached through
// [iter.Pull]): a direct hand-off from one goroutine to another, without the
// scheduler, whose core is the runtime's assembly context switch. A
// hand-written stack swap onto memory Go does not own (libco's coctx_swap
// onto malloc'ed stacks) cannot work for Go code: the garbage collector scans
// only stacks the runtime knows, stacks grow by being copied into runtime
// memory, and preemption and tracebacks need runtime frames.
//
// # The raw switch (build tag cogen_coroswitch)
//
// Built with -tags cogen_coroswitch and linked with
// -ldflags=-checklinkname=0, a coroutine with a goroutine of its own is a
// bare runtime coro instead of an iter.Pull: runtime.newcoro creates it
// and runtime.coroswitch, reached through go:linkname as package iter
// reaches it, enters and leaves it, called from Resume and Yield
// themselves ([RawSwitch] reports the build). Every behaviour is the
// default build's: panics and runtime.Goexit cross Resume, Release and
// Reset, Env.Close's unwinding, the stall watchdog, Co.Where and dumps,
// and the race detector (the switch makes iter.Pull's happens-before
// edges); CI runs the stackful and cosync suites under the tag, also with
// -race. Share-stack carriers keep iter.Pull. Measured side by side on the
// 2-core VM (BenchmarkStackfulSwitchRatio, BenchmarkStackfulCreateRatio:
// medians of per-chunk ratios, five runs each, min/median/max):
//
//	switch round trip / bare iter.Pull     1.28/1.31/1.31 default, 0.92/0.94/0.96 raw
//	create+run+release / iter.Pull's       1.49/1.50/1.51 default, 1.09/1.09/1.09 raw
//	allocations per create+run+release     7 default, 3 raw (a Co of 176 bytes, not 160)
//
// It depends on runtime internals Go does not promise to keep: the
// functions runtime.newcoro(func(*coro)) *coro and runtime.coroswitch(*coro)
// with their semantics of Go 1.23 to 1.26 (src/runtime/coro.go). How a user
// notices a change: without -ldflags=-checklinkname=0 the link fails with
// "invalid reference to runtime.coroswitch"; on a Go release after 1.26 the
// tag fails to compile (undefined:
// cogen_coroswitch_supports_go1_23_to_go1_26_only_build_without_the_tag)
// until the package is checked against that runtime; a renamed or removed
// function fails the link ("relocation target ... not defined"). A change
// of meaning under the same signature is what the Go version check is for.
// Use the default build unless the switch's last 30 % matters.
//
// Invariants, for an env e:
//
//   - e's call stack holds the main coroutine at the bottom and the current
//     coroutine ([Env.Current]) on top; exactly the coroutines on it are
//     Running, and the goroutine of the top one is the only one running;
//   - Resume pushes a Created or Suspended coroutine and switches to it;
//     Yield, a wait and the end of the function pop the top one and switch
//     to the one below it, its resumer (libco's asymmetric coroutines);
//   - a coroutine suspended in a wait on the loop is resumed only by the
//     loop, when the wait ends; one suspended by Yield only by Resume;
//   - the loop's own resume is the one exception to "a wait switches to the
//     resumer": a coroutine the loop resumed (depth 2) that waits while the
//     loop's run-next slot holds a waiting coroutine of its env (a channel's
//     hand-off, see runtime/cosync) resumes that one itself, on the loop's
//     behalf, and takes the slot back when it holds its own wake-up: the
//     switch goes coroutine to coroutine, without the main coroutine in
//     between. It stays Running meanwhile (it is on the call stack); a
//     panic of the coroutine it resumed is raised by the loop, out of
//     [Env.Run], as if the loop had resumed that coroutine; the loop's
//     bound on run-next runs bounds the chain.
//
// # Life cycle
//
//	c := env.Create(fn, attr)  // co_create: Created, nothing runs yet
//	c.Resume()                 // co_resume: Running until it yields, waits or ends
//	c.Yield()                  // co_yield_ct, inside fn: Suspended, back to the resumer
//	c.Release()                // co_release: of a Created or Dead coroutine
//	c.Reset()                  // co_reset: Dead back to Created
//
// A coroutine that has not started has no goroutine. Misuse panics with a
// message starting "stackful: ", as iter.Pull does: resuming a running
// (including the caller itself), dead, released or waiting coroutine or the
// main coroutine; yielding from the main coroutine or on a coroutine that is
// not the current one; releasing or resetting a suspended or running one;
// resuming beyond [Env.MaxDepth] coroutines on the call stack (128 by
// default, like libco's pCallStack, which libco overflows silently). A panic
// inside a coroutine ends it and is raised again in its resumer with the
// original value; runtime.Goexit in a coroutine ends its resumer's goroutine
// too, as with iter.Pull.
//
// The checks are state-based, like iter.Pull's, plus one identity check: on
// amd64 and arm64, Yield compares the calling goroutine with the
// coroutine's own (a nanosecond, see Self) and panics with "stackful: Yield
// called from a goroutine that is not the current coroutine's". Elsewhere,
// and for Resume called concurrently from another goroutine, the misuse is a
// data race that the race detector reports.
//
// [Env.Close] unwinds every suspended coroutine: its pending Yield or wait
// panics with a private value, so its deferred calls run and its goroutine
// ends; the panic is recovered at the coroutine's top. Then the env's own
// loop is closed. No goroutine is left behind (tested with 10,000 suspended
// coroutines).
//
// # Waiting on the loop
//
// The waiting methods of [Co] are the suspension points a stackless task
// mirrors with identical signatures: Read, Write, Accept, Connect, Poll,
// Sleep, Gosched, Wait (on a [Cond]) and Yield; Close closes an fd and wakes
// its waiters. Each one tries the operation without blocking through the
// loop's Try* functions; if it would block, the coroutine's waiter (embedded
// in the Co, so waiting allocates nothing) is armed and the coroutine yields
// to its resumer, as libco's co_poll does; the loop resumes it when the wait
// ends, and it tries again. [Env.Run] is co_eventloop: it runs the loop,
// which resumes the coroutines whose waits ended, and calls stop after each
// iteration. [Cond] is co_cond: Signal and Broadcast queue the waiters on the
// loop's ready list and never switch inline. ReadTimeout, WriteTimeout,
// AcceptTimeout and ConnectTimeout take a timeout; [Co.Waiter] and
// [Co.Await] build further waits.
//
// The main coroutine has no resumer to yield to, so its waiting methods run
// the loop until the wait ends (libco's co_poll from main crashes). Timers
// never fire early; an idle loop sleeps until the next timer.
//
// # Stalls
//
// A coroutine must wait only through its env. One that blocks in Go's
// scheduler instead (a sync.Mutex, a channel, a blocking system call)
// freezes its env, and hangs it for good when what it waits for is held
// by a suspended coroutine of the same env (a library that keeps a Go
// mutex across I/O). Each env has a watchdog goroutine, started with the
// env and stopped by Close, that samples the current coroutine
// and the Resume count four times per stall timeout ([Env.SetStallTimeout],
// [DefaultStallTimeout] = 1 s; the switch path pays one increment). When
// one coroutine (not main) has kept the env longer than the timeout, the
// watchdog reads its goroutine's state from one traceback
// of all goroutines: if it is blocked, a report naming the coroutine, what
// it is blocked in and its stack goes to stderr, once per stall, or to the
// handler set by [Env.OnStall]. A coroutine that is computing (running or
// runnable) is not printed; the handler sees it with [Stall] Blocked false,
// again after twice the time each time. Run calls that can block in Go
// with hook.Offload.
//
// # Offloading
//
// What can only block in Go - a driver that holds a Go mutex across I/O
// or waits on a Go channel, a cgo call, file I/O, Go's resolver - runs
// safely through [Co.Offload] (or hook.Offload in hooked code): fn runs
// on a worker goroutine of the env's pool while the coroutine waits on
// the loop. The pool starts workers on demand up to [Env.SetOffloadLimit]
// ([DefaultOffloadLimit], 64) and ends them in Close; when the limit is
// in flight, callers wait on the loop. [Co.OffloadContext] bounds the wait
// and cancels fn's context when it passes. A round trip allocates nothing
// after the coroutine's first (its job is reused) and costs two
// cross-thread wake-ups: a channel send to the worker and a submit to the
// loop (BenchmarkOffload, tens of microseconds on the loaded 2-core VM,
// the same as a goroutine per call, which allocates 4 times).
//
// # Porting from libco
//
// The model is libco's, and so are the orders: create/resume/yield, the
// dynamic resumer, the call-stack depth, specific data, a cond's FIFO,
// poll's revents and counts, timers in deadline order, and co_eventloop's
// iteration (a coroutine woken while the loop runs woken coroutines, by a
// cond signal for example, runs before pfn is called). What differs, on
// purpose:
//
//   - Misuse panics with a "stackful: " message where libco crashes or
//     corrupts memory: resuming a running, dead or waiting coroutine,
//     yielding from main, more than [Env.MaxDepth] coroutines on the call
//     stack, co_poll on the main coroutine (here it runs the loop), and any
//     method called on a nil *Co, which is what [Self] returns before any
//     env exists (libco's co_self without an env dereferences null).
//   - No default socket timeout: libco's hooked read and write give up
//     after a fixed second; here they wait until SO_RCVTIMEO/SO_SNDTIMEO,
//     if set, and an expired one reports the kernel's errno (EAGAIN;
//     EINPROGRESS for connect) in a coroutine as outside (package hook).
//   - 0 never waits: Wait(c, 0), ReadTimeout(fd, p, 0) and the other
//     timeouts try once and give up at once, and Sleep(0) returns at once;
//     negative means forever (libco's co_cond_timedwait reads <= 0 as
//     forever). See package loop's Timeouts.
//   - Poll has poll(2)'s semantics: it returns without suspending when an
//     fd is ready already (libco's co_poll always suspends, giving the
//     other coroutines a turn). To keep a polling loop from starving the
//     env, every 64th Poll in a row that did not suspend yields first. Read
//     and Write likewise return without suspending when they can complete.
//   - An idle loop does not wake up: libco calls pfn about every
//     millisecond, here Run's stop is called only when something happens.
//     Stop an env from another goroutine with [Env.Stop] (or set a flag
//     and call [Env.Wake]); e.Loop().SetIdleTick(time.Millisecond) restores
//     libco's cadence for a pfn that polls state set by other threads.
//   - A coroutine's panic is raised again in its resumer with the original
//     value (libco has no exceptions across co_swap); the coroutine's own
//     stack is printed with it if nothing recovers it, and
//     [Co.PanicStack] returns it.
//   - Hooked calls are functions of package hook (hook.Read for read),
//     not interposed libc symbols, and Go's net interfaces run on
//     coroutines through package conet.
//
// # Stacks
//
// [Attr] keeps libco's two stack modes, each with a real effect, measured by
// the benchmarks:
//
//   - Default: a goroutine stack that starts at the runtime minimum (2 KiB)
//     and doubles by copying when a call needs more. A suspended coroutine
//     costs 2,988 bytes: the 2 KiB stack, the goroutine descriptor and the
//     iter.Pull state (about 700), the 160-byte Co and its entry in
//     [Self]'s registry (about 60); libco: 18 KB private, 8.7 KB shared.
//     The loop keeps its own path into a first wait shallow so that the
//     stack stays at 2 KiB: an echo connection waiting in Read costs its
//     server 3.1 KB (stacks and live heap; Go's net 2.9 KB; resident set
//     3.3 KB against 3.6), where a first Read that grew the stack to 4
//     KiB made it 5.2 KB (cobench's idle-connection rows).
//   - Private (StackSize): the stack is grown to StackSize up front, when
//     the coroutine starts, in one step (frames that are reserved but never
//     touched, so only the few hundred bytes in use are copied). A later
//     call within the reservation pays no growth: a first call 80 KiB deep
//     takes 1.5 µs with a 128 KiB private stack and 28–34 µs without (six
//     growth copies, each walking every frame). The reservation itself
//     costs about 0.6–1 µs at start, and 128 KiB per suspended coroutine.
//   - Shared (ShareStack from [AllocShareStack]): a Go coroutine cannot
//     leave its goroutine stack, so the group shares carriers instead: a
//     coroutine starts on an idle carrier goroutine of its group, and when
//     it finishes the carrier, stack included, goes back to the group (up
//     to count idle ones) to run the next. Creating, running and releasing
//     a coroutine then allocates only the Co and starts no goroutine (about
//     0.33 µs against 0.57 µs). Carrier stacks start minimal and grow and
//     shrink on demand; size reserves nothing. A suspended coroutine holds
//     its carrier: 3,037 bytes.
//
// What Go does not allow: a stack that outlives its goroutine's suspension
// elsewhere (a suspended coroutine keeps its goroutine stack; libco copies a
// shared-stack coroutine's used bytes out instead), and a reservation that
// lasts forever: the garbage collector halves a stack using less than a
// quarter of it each cycle (GODEBUG=gcshrinkstackoff=1 turns that off), so a
// private stack held by a shallow suspended coroutine decays to 64 KiB after
// one collection, and further after more. The runtime also sizes new stacks
// from the average use it saw in the last collection (adaptivestackstart):
// in a program whose goroutines are mostly suspended coroutines that stays
// at the minimum.
//
// # Coroutine-local state
//
// [Key] is libco's CO_ROUTINE_SPECIFIC, typed: each coroutine, the main one
// included, has its own value per key, dropped on Release and Reset.
// [Co.Setenv], [Co.Getenv], [Co.LookupEnv], [Co.Unsetenv] and [Co.Environ]
// give each coroutine a private overlay over the process environment (libco
// hooks setenv/getenv for this). [Co.EnableHook] and [Co.DisableHook] are
// co_enable_hook_sys's per-coroutine flag, read by hooked calls.
//
// # Costs
//
// A switch (Resume + Yield) is one iter.Pull round trip plus the call
// level Resume and Yield add: O(1), no allocation. Creating a coroutine
// allocates its record and, by default, a goroutine whose stack grows on
// demand; a private stack (Attr.StackSize) is reserved once and a shared
// stack (Attr.ShareStack) reuses a carrier goroutine (one allocation per
// create). A suspended coroutine holds its goroutine's stack. After a
// switch the CPU mispredicts every return into a frame of the other
// stack, so each call level between the two sides costs a few
// nanoseconds; Resume cannot be inlined (calling next alone takes most of
// the inliner's budget), and the raw switch (above) removes that level.
// The figures (per switch, per create, per suspended coroutine, per Cond
// signal, the ratio to iter.Pull) are in docs/benchmarks.md, "Costs
// quoted by the runtime's docs", beside the benchmarks that produce them.
//
// # Threads
//
// An env and its coroutines belong to the goroutine that runs its loop.
// Other goroutines reach it through [loop.Loop.Submit]. For several cores,
// a [Group] runs one env per core, each on a goroutine locked to its thread:
// [Group.Go] and [Group.GoNext] start a coroutine on a chosen env or
// round-robin from any goroutine, [Group.ServeTCP] (and conet.ServeGroup for
// net.Conn handlers) gives each env a SO_REUSEPORT listener of its own, and
// Shutdown lets the live coroutines finish up to a deadline, then cancels
// their waits and unwinds the rest. Coroutines of different envs hand values
// over through runtime/cosync's channels, which bridge loops.
//
// # Completion I/O (io_uring)
//
// On a loop with completion I/O ([loop.Loop.Completion]: the io_uring
// backend) a connection registered with [loop.Loop.RegisterCompletion] is
// not read and written with read(2) and write(2) after readiness: the loop
// receives into buffers of its own and sends from a copy, and [Co.Read],
// [Co.Write] and their timeout forms (built on loop.TryReadStream and
// loop.TryWrite) take from and add to those buffers. That is transparent
// to code that does its I/O through co's methods and package hook's calls
// only, and wrong for code that reads or writes the descriptor itself: the
// bytes it would read are in the loop's buffers. So a handler's fd enters
// completion mode only by request: [Env.ServeTCPCompletion] and
// [Group.ServeTCPCompletion] are ServeTCP for handlers that promise that
// (their stackless twins, whose tasks cannot do otherwise, always do it),
// and code that accepts its own connections may call RegisterCompletion
// itself. [Env.ServeTCP] and [Group.ServeTCP] keep their connections on
// readiness; on io_uring their listeners, which only the accept coroutine
// uses, are served by one multishot accept ([loop.Loop.RegisterAccept]).
package stackful
