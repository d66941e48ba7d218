package gate

import (
	"fmt"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Redis is a go-redis client for coroutines, paired with its gate: a
// cosync.Semaphore as large as the client's pool (or its share of the pool,
// see [NewRedisShared]). Every use from a coroutine goes through [Redis.Do],
// which holds a place in the gate around it, so the pool always has a free
// conn and never waits in Go's scheduler - where an exhausted pool would
// freeze the env (until PoolTimeout, 30 s here). The pool's size and the
// gate come from the same number and cannot disagree.
type Redis struct {
	client *redis.Client
	gate   *cosync.Semaphore
}

// RedisOptions returns go-redis options for a client used from hooked
// coroutines: conns from [conet.Dialer], so every read, write and dial
// waits on the loop; poolSize conns; maintenance notifications off (their
// handshake holds a Go RWMutex across I/O). Pass them, adjusted if need be,
// to [NewRedis] or [NewRedisShared]: a bare redis.NewClient of them has no
// gate.
func RedisOptions(addr string, poolSize int) *redis.Options {
	var d conet.Dialer
	return &redis.Options{
		Addr:                     addr,
		Dialer:                   d.DialContext,
		PoolSize:                 poolSize,
		PoolTimeout:              30 * time.Second,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
}

// NewRedis returns a client made from opts (normally [RedisOptions]) for
// the coroutines of one env, with a gate of opts.PoolSize. It panics if
// opts.PoolSize is not set (go-redis's default depends on GOMAXPROCS, and
// the gate must be exactly the pool) or opts.Dialer is nil (the default
// dialer's conns wait in Go's poller).
func NewRedis(opts *redis.Options) *Redis { return NewRedisShared(opts, 1)[0] }

// NewRedisShared returns one client made from opts for the coroutines of
// envs envs (one env per core, say), as one handle per env: each has a gate
// of opts.PoolSize/envs, so the gates together never exceed the pool, and
// conns move between the envs (conet migrates them). It panics as [NewRedis]
// does, and if the pool has fewer conns than envs.
func NewRedisShared(opts *redis.Options, envs int) []*Redis {
	share := gateShare("NewRedisShared", opts.PoolSize, envs)
	if opts.Dialer == nil {
		panic("db: NewRedis: opts.Dialer is nil: use RedisOptions (conet's dialer)")
	}
	client := redis.NewClient(opts)
	out := make([]*Redis, envs)
	for i := range out {
		out[i] = &Redis{client: client, gate: cosync.NewSemaphore(share)}
	}
	return out
}

// Do runs fn with the client while holding a place in the gate; fn must
// finish with the client (pipelines executed, results read) before it
// returns. co is the calling coroutine's handle. Do returns fn's error, or
// the gate's (wrapped) if the wait for a place ends first: a canceled
// stackless task, a closed loop.
func (r *Redis) Do(co cosync.Handle, fn func(c *redis.Client) error) error {
	if err := r.gate.Acquire(co, 1); err != nil {
		return fmt.Errorf("db: waiting for a redis conn: %w", err)
	}
	defer r.gate.Release(1)
	return fn(r.client)
}

// Client returns the client itself, for what does not wait on its pool
// (PoolStats) and for goroutines; a coroutine that uses it outside [Redis.Do]
// can freeze its env.
func (r *Redis) Client() *redis.Client { return r.client }

// Close closes the client (shared by every handle of [NewRedisShared]).
func (r *Redis) Close() error { return r.client.Close() }

// gateShare returns each env's share of a pool of size conns, or panics if
// it is not one.
func gateShare(fn string, size, envs int) int64 {
	switch {
	case size <= 0:
		panic(fmt.Sprintf("db: %s: the pool size must be set (it is the gate's size), got %d", fn, size))
	case envs <= 0 || envs > size:
		panic(fmt.Sprintf("db: %s: %d envs for a pool of %d conns", fn, envs, size))
	}
	return int64(size / envs)
}
