// Package hook is libco's hooked system calls for stackful coroutines:
// socket code written in blocking style runs cooperatively on an env's
// event loop, unchanged.
//
// libco interposes on libc's socket, read, write, poll, sleep and friends
// with dlsym(RTLD_NEXT); a hooked call checks whether the calling thread is
// in a coroutine with hooks on, and if so turns the blocking call into a
// non-blocking one plus a wait on the event loop. Go has no symbol
// interposition, so this package offers the calls themselves, each with
// the signature of its golang.org/x/sys/unix counterpart: port a program by
// calling hook.Read where it called unix.Read.
//
// # The contract (libco's)
//
// Inside a coroutine with hooks enabled ([stackful.Co.EnableHook], libco's
// co_enable_hook_sys), a call that would block waits on the env's loop
// instead, and the env's other coroutines run meanwhile. Everywhere else -
// on any goroutine that is not a coroutine, on the env's main goroutine, in
// a coroutine with hooks disabled (the default, as in libco) - each call
// behaves exactly like the plain system call, blocking its goroutine's
// thread when the descriptor is blocking. (Hooks can be enabled on the
// main coroutine too; its waits then run the loop until they end, which
// libco's main coroutine cannot do.)
//
// # Finding the coroutine
//
// libco finds the calling coroutine through a thread-local env. Go has no
// goroutine-local storage, but every stackful coroutine runs on a goroutine
// of its own, so the calling goroutine's identity names it:
// [stackful.Self] looks the goroutine up in a registry that each coroutine
// joins when it starts and leaves when it ends (the identity is the address
// of the runtime's goroutine descriptor, read with two instructions of
// assembly on amd64 and arm64; see runtime/stackful/self.go for why that
// is sound). A lookup is O(1) (a shard lock and a table probe), once per
// call; a call on a
// descriptor the package does not manage skips it.
//
// # Hook descriptors
//
// Like libco's rpchook table, the package keeps a process-wide table of the
// descriptors it manages: those made by [Socket], [Socketpair] and
// [Accept4], and those handed to [Manage]. A hook descriptor is always
// non-blocking in the kernel; the table keeps the caller's view of it:
//
//   - blocking unless the caller asks otherwise (SOCK_NONBLOCK, or
//     O_NONBLOCK through [FcntlInt], which reports the caller's flag). A
//     descriptor the caller made non-blocking returns EAGAIN at once,
//     in coroutines too, as in libco; so does a call with MSG_DONTWAIT;
//   - a read timeout and a write timeout, set with [SetsockoptTimeval]
//     (SO_RCVTIMEO, SO_SNDTIMEO). The default is none, not libco's fixed
//     second. An expired timeout reports, in a coroutine and outside
//     alike, what the kernel reports for a blocking socket: EAGAIN (a
//     short count if a write made progress), or EINPROGRESS for connect.
//     ETIMEDOUT comes only from the kernel (a TCP handshake that fails).
//
// A call on a descriptor that is not a hook descriptor is the plain system
// call everywhere, as in libco. Outside a coroutine, a blocking hook
// descriptor is emulated with poll(2) on it: the goroutine blocks.
//
// Write-side calls (Write, Writev, Send, Sendto, Sendmsg) write everything
// unless an error occurs, as a blocking write does. [Close] drops the
// descriptor's registration with the loop first, so a coroutine waiting on
// it wakes with EBADF. [Poll] is libco's co_poll on any descriptors.
// [Sleep], [Usleep] and [Nanosleep] sleep on the loop. [LookupHost] (the
// hooked gethostbyname) and [Offload] run what can only block on a worker
// goroutine of the env's offload pool ([stackful.Co.Offload]) while the
// coroutine waits on the loop.
//
// Errors are bare [syscall.Errno] values, as x/sys returns them: EAGAIN,
// ECONNRESET, ECONNREFUSED, EBADF...
//
// # Envs and loops
//
// A descriptor is registered, on the first call that waits on it, with the
// loop of the waiting coroutine's env, and stays registered until Close: it
// is served by that env. A coroutine of another env that would wait on it
// gets EBUSY until [Detach] releases it on the serving env; two coroutines
// of one env waiting to read (or to write) the same descriptor at once get
// EBUSY too, as the loop has one reader and one writer slot per descriptor.
// Close from a goroutine outside the serving env is handed to that env's
// loop.
//
// # Completion mode (io_uring)
//
// A connection that the loop serves in completion mode
// (loop.Loop.RegisterCompletion, for example one of
// stackful.Env.ServeTCPCompletion) has its received bytes in the loop's
// buffers and its writes queued on the loop. In a hooked coroutine of the
// serving env the calls that move bytes take them from and add them to the
// loop (Co.ReadTimeout, Co.WriteTimeout) on such a descriptor instead of
// making a system call, so code ported to this package works on it
// unchanged; MSG_OOB, MSG_ERRQUEUE, control data and [Detach] fail with
// EOPNOTSUPP there. Outside such a coroutine the calls stay the plain
// system calls, which that mode's contract rules out.
//
// The same operations are available without the hook contract as methods
// of [stackful.Co] (Read, Write, Accept, Connect, Poll, Sleep, Close),
// which always wait on the loop; the hooked calls are built on them and on
// the loop's readiness waits, so both coroutine models mean the same thing.
// For Go's net interfaces (net.Conn, net.Listener, crypto/tls, net/http)
// see the sibling package conet.
package hook
