package gate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cogen-go/cogen/client/gate"
)

// The constructors refuse a gate that could disagree with the pool: no pool
// size (go-redis's default depends on GOMAXPROCS), more envs than conns,
// no coroutine dialer. No server is needed: they panic before dialing.
func TestGateMustMatchPool(t *testing.T) {
	mustPanic := func(name, want string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if s, _ := r.(string); !strings.HasPrefix(s, "db: ") || !strings.Contains(s, want) {
				t.Errorf("%s: panic %v, want one with %q", name, r, want)
			}
		}()
		f()
	}
	mustPanic("redis, no pool size", "pool size must be set", func() { gate.NewRedis(gate.RedisOptions("127.0.0.1:1", 0)) })
	mustPanic("redis, 3 envs for 2 conns", "3 envs for a pool of 2 conns", func() { gate.NewRedisShared(gate.RedisOptions("127.0.0.1:1", 2), 3) })
	opts := gate.RedisOptions("127.0.0.1:1", 4)
	opts.Dialer = nil
	mustPanic("redis, no dialer", "Dialer is nil", func() { gate.NewRedis(opts) })

	cfg, err := gate.PgPoolConfig("postgres://127.0.0.1:1/x", 0)
	if err != nil {
		t.Fatal(err)
	}
	mustPanic("pg, no MaxConns", "pool size must be set", func() { gate.NewPgPool(context.Background(), cfg) })
	cfg.MaxConns = 4
	cfg.ConnConfig.DialFunc = nil
	mustPanic("pg, no dialer", "DialFunc is nil", func() { gate.NewPgPool(context.Background(), cfg) })

	rcs := gate.NewRedisShared(gate.RedisOptions("127.0.0.1:1", 4), 2)
	if len(rcs) != 2 || rcs[0].Client() != rcs[1].Client() {
		t.Fatalf("NewRedisShared: %d handles, not sharing one client", len(rcs))
	}
	rcs[0].Close()
}
