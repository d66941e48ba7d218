package gate

import (
	"context"
	"fmt"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PgPool is a pgxpool for coroutines, paired with its gate: a
// cosync.Semaphore as large as the pool (or its share of the pool, see
// [NewPgPoolShared]). Every use from a coroutine goes through [PgPool.Do],
// which holds a place in the gate around it, so Acquire always finds a free
// conn and never waits in Go's scheduler - where an exhausted pool freezes
// the env, forever with context.Background(). The pool's MaxConns and the
// gate come from the same number and cannot disagree.
type PgPool struct {
	pool *pgxpool.Pool
	gate *cosync.Semaphore
}

// PgPoolConfig parses a postgres:// URL into a pgxpool config for a pool
// used from hooked coroutines: conns from [conet.Dialer], so every query
// waits on the loop, and maxConns of them. Pass it, adjusted if need be, to
// [NewPgPool] or [NewPgPoolShared]: a bare pgxpool of it has no gate.
func PgPoolConfig(url string, maxConns int32) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("db: %w", err)
	}
	var d conet.Dialer
	cfg.ConnConfig.DialFunc = d.DialContext
	cfg.MaxConns = maxConns
	return cfg, nil
}

// NewPgPool returns a pool made from cfg (normally [PgPoolConfig]) for the
// coroutines of one env, with a gate of cfg.MaxConns. Called in a hooked
// coroutine (the main one, while the loop has nothing else to do, is fine),
// its dials wait on the loop. It panics if cfg.MaxConns is not set or
// cfg.ConnConfig.DialFunc is nil (the default dialer's conns wait in Go's
// poller).
func NewPgPool(ctx context.Context, cfg *pgxpool.Config) (*PgPool, error) {
	pools, err := NewPgPoolShared(ctx, cfg, 1)
	if err != nil {
		return nil, err
	}
	return pools[0], nil
}

// NewPgPoolShared returns one pool made from cfg for the coroutines of envs
// envs, as one handle per env: each has a gate of cfg.MaxConns/envs, so the
// gates together never exceed the pool. It panics as [NewPgPool] does, and
// if the pool has fewer conns than envs.
func NewPgPoolShared(ctx context.Context, cfg *pgxpool.Config, envs int) ([]*PgPool, error) {
	share := gateShare("NewPgPoolShared", int(cfg.MaxConns), envs)
	if cfg.ConnConfig.DialFunc == nil {
		panic("db: NewPgPool: cfg.ConnConfig.DialFunc is nil: use PgPoolConfig (conet's dialer)")
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("db: %w", err)
	}
	out := make([]*PgPool, envs)
	for i := range out {
		out[i] = &PgPool{pool: pool, gate: cosync.NewSemaphore(share)}
	}
	return out, nil
}

// Do runs fn with the pool while holding a place in the gate; everything fn
// takes from the pool (an acquired conn, rows, a transaction) must be
// released, read or ended before it returns. co is the calling coroutine's
// handle. Do returns fn's error, or the gate's (wrapped) if the wait for a
// place ends first: a canceled stackless task, a closed loop.
func (p *PgPool) Do(co cosync.Handle, fn func(pool *pgxpool.Pool) error) error {
	if err := p.gate.Acquire(co, 1); err != nil {
		return fmt.Errorf("db: waiting for a postgres conn: %w", err)
	}
	defer p.gate.Release(1)
	return fn(p.pool)
}

// Pool returns the pool itself, for what does not wait on it (Stat) and for
// goroutines; a coroutine that uses it outside [PgPool.Do] can freeze its
// env.
func (p *PgPool) Pool() *pgxpool.Pool { return p.pool }

// Close closes the pool (shared by every handle of [NewPgPoolShared]).
func (p *PgPool) Close() { p.pool.Close() }
