// Package conet is Go's net interfaces on stackful coroutines: listeners,
// conns, packet conns, a dialer and a resolver whose blocking calls, made in
// a coroutine, wait on the env's event loop while the env's other
// coroutines run. Unmodified code written against net.Conn and
// net.Listener that waits only in the conn's calls - bufio, net/textproto,
// crypto/tls, http.ReadRequest - runs on coroutines this way.
//
// # Database drivers: a pool paired with its gate
//
// The likeliest way to freeze an env is a stock driver dialled through
// conet and used by more coroutines than its pool has conns: the pool's
// Get waits in Go's scheduler for a conn that a suspended coroutine of the
// same env holds (minutes for go-redis, until its pool timeout; forever for
// pgx with context.Background()). The answer is a coroutine-aware gate,
// a cosync.Semaphore exactly as large as the pool, around every use of it,
// and client/gate makes the two together so they cannot disagree:
//
//	rc := db.NewRedis(db.RedisOptions(addr, 16))  // go-redis: 16 conns, a gate of 16
//	err := rc.Do(co, func(c *redis.Client) error { return c.Set(ctx, k, v, 0).Err() })
//
//	pg, err := db.NewPgPool(ctx, cfg)             // cfg from db.PgPoolConfig(url, 10)
//	err = pg.Do(co, func(p *pgxpool.Pool) error { return p.QueryRow(ctx, q).Scan(&n) })
//
// A coroutine beyond the pool's size waits in the gate, on the loop, while
// the others run. NewRedisShared and NewPgPoolShared split one pool among
// the envs of a group (a gate per env, together no larger than the pool).
// client/gate is a module of its own, so that the drivers stay out of
// cogen's dependencies; copy its two small files into yours.
//
// # What works unmodified, and what needs offload
//
// A coroutine must wait only through its env. Code that, besides reading
// and writing conns, waits in Go's scheduler - on a sync.Mutex held across
// I/O, a Go channel, a pool's semaphore, a blocking system call - freezes
// the env while it waits, and hangs it for good when what it waits for is
// held by a suspended coroutine of the same env. The env's stall watchdog
// reports that on stderr after a second (stackful.Env.OnStall), but cannot
// undo it. So:
//
//   - works unmodified: protocol code over one conn per coroutine (bufio,
//     textproto, TLS, HTTP/1 request and response parsing, hand-written
//     clients such as client/resp);
//   - works with a coroutine gate: a database driver given
//     [Dialer.DialContext], when every use of its connection pool is
//     bracketed by a cosync.Semaphore of the pool's size, so the pool never
//     waits for a conn (go-redis/v9 with maintenance notifications off,
//     pgx/v5's pgxpool: client/gate's NewRedis and NewPgPool, tested against
//     real servers; its package doc lists what else is unsafe);
//   - needs offload (stackful.Co.Offload, hook.Offload): drivers or
//     features that hold Go locks across I/O or wait on goroutines of
//     their own (go-redis cluster, sentinel and pub/sub clients, anything
//     not audited), cgo, file I/O. Offloaded code runs on a worker
//     goroutine with plain conns or net's own, while the coroutine waits on
//     the loop.
//
// # The contract
//
// It is package hook's: in a coroutine with hooks enabled
// ([stackful.Co.EnableHook]; [Serve] enables them on the coroutines it
// runs), Read, Write, Accept, the connect of Dial and name lookups wait on
// the loop. Everywhere else - other goroutines, the env's main goroutine,
// coroutines with hooks disabled - the same objects behave as package
// net's: they wait in Go's runtime poller (through an *os.File made on
// first such use), blocking only the calling goroutine. A conn may be used
// both ways, and passed freely between the two worlds.
//
// Code that receives no *stackful.Co still finds its coroutine: see
// [stackful.Self], the goroutine-identity registry that package hook
// documents.
//
// # The net.Conn contract
//
// Conns honour all of it. Deadlines apply to calls in progress: setting
// one, from any goroutine, wakes a waiting coroutine to look at it again.
// A call whose deadline has passed fails with an error for which
// errors.Is(err, os.ErrDeadlineExceeded) holds and Timeout() is true. Close,
// from a coroutine of the same env or from any goroutine, wakes every
// pending call, which fails with net.ErrClosed; the descriptor is closed
// once no call uses it, after its registration with the loop has been
// dropped. Several coroutines may read (or write) one conn at once: they
// take turns. [Conn.CloseWrite] half-closes a stream.
//
// Errors are *net.OpError values wrapping what package net would wrap:
// *os.SyscallError with the errno (errors.Is(err, syscall.ECONNRESET)),
// [ErrDeadlineExceeded] (os.ErrDeadlineExceeded), [ErrClosed]
// (net.ErrClosed), io.EOF unwrapped at end of stream. No error says that a
// conn belongs to another env: conns migrate (see Envs).
//
// [Conn.SyscallConn] and [PacketConn.SyscallConn] give the descriptor to
// code that needs it (go-redis checks a pooled conn with it before reuse):
// Control runs f with the descriptor held open; Read and Write wait for
// readiness between calls of f the way the conn's own calls do.
//
// # Envs
//
// A conn is served by one env at a time: the env whose hooked coroutine
// last claimed it. Its descriptor is registered with that env's loop once
// and stays registered while the env serves it (no epoll_ctl per wait,
// unlike libco). A coroutine of another env that uses the conn - as a
// connection pool shared by several envs does, one env per core - makes it
// migrate: the serving env's loop drops its registration (on its own
// goroutine, asked through its submit queue, and only while none of its
// coroutines uses the conn), hands over the bytes it had read ahead, and
// the calling env registers it. Meanwhile the caller waits on its loop.
// When the serving env does not answer within 20 ms (its goroutine is
// busy, or does not run its loop), or one of its coroutines is using the
// conn, the call falls back: it runs through Go's poller on an offload
// worker (stackful.Co.Offload) while the coroutine waits. After an
// unanswered request, calls from other envs fall back at once for a second
// before asking again; the request stays queued and moves the conn when
// the serving env runs its loop again. A conn whose env has been closed is
// taken over at once. From plain goroutines a conn always works, through Go's poller.
//
// Costs: a migration is one round trip between the two loops (two
// cross-thread wake-ups) per hand-off, after which the conn's calls cost
// nothing extra; a fallback costs about as much on every call. Where every
// exchange uses a conn the other env used last (BenchmarkConnHandOff) the
// two cost the same within noise (figures in docs/benchmarks.md); a conn
// that makes several calls per hand-off, or stays in one env, is cheaper
// migrated.
//
// The loop reads up to 64 bytes beyond a Read's buffer on a stream (one
// system call per exchange instead of two); those bytes are kept on the
// conn, not on the loop, so whoever reads next - a coroutine of any env, a
// plain goroutine - gets them first, in order, and a closed env takes
// none with it.
//
// # io_uring
//
// On a loop with completion I/O (io_uring) conns are in readiness mode by
// default: the loop waits for their descriptors to be ready and the conn's
// calls make read(2) and write(2), as on epoll. Completion mode
// (loop.Loop.RegisterCompletion) keeps the received bytes in the loop's
// buffers and queues the writes on the loop, which only that loop's
// goroutine can reach, while a conn may be read and written through Go's
// poller from plain goroutines, migrate to other envs, and give its
// descriptor to SyscallConn's callers: each of those would miss the bytes
// the loop holds or overtake the writes it queued. So completion mode is
// an opt-in with a narrower contract: [ServeCompletion]'s conns are served
// in it, and the calls that cannot reach the loop's buffers fail with
// [ErrCompletion] (Read, Write and CloseWrite outside a hooked coroutine
// of the serving env; SyscallConn's Read and Write) instead of losing or
// reordering bytes. Such a conn holds a second descriptor, the duplicate
// the loop serves (the loop closes it once what was written has been
// sent). Conns of Dial, and of Serve and ServeConns, keep the whole
// contract above.
//
// For several cores without sharing, run one env per goroutine (optionally
// locked to its thread with runtime.LockOSThread), each with its own
// listener made by [ListenReusePort] on the same address: the kernel
// spreads connections across them.
//
// # Closing
//
// Close from any goroutine releases the connection at once, whatever the
// serving env is doing: the socket under the descriptor's number is
// replaced with a placeholder (dup3), so the peer sees the end and every
// poller drops it, while the number itself stays taken until the serving
// loop has dropped its registration and no call uses it. So there is never
// a double close, and no loop keeps a registration under a number that has
// been reused.
//
// # Name lookups
//
// [Resolver] makes any *net.Resolver yield: its lookups run on a helper
// goroutine while the coroutine waits on the loop (see its documentation
// for why a Resolver whose Dial returns coroutine conns could not yield).
// [Dialer] resolves host names with it.
//
// # Costs
//
// On top of the loop's read and write, a call costs a goroutine-identity
// lookup (a shard lock and a table probe: O(1)) and a few atomic
// operations; a request-response
// exchange on a conn makes one read(2) and one write(2) system call when
// the data is there, and an epoll_wait per loop iteration shared by every
// conn that became ready.
package conet
