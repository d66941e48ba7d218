package gate_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/client/gate"
	"github.com/cogen-go/cogen/client/gate/internal/servers"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Pools shared by two envs (issue 20): one client, one pool of coroutine
// conns, used by the coroutines of two envs, each on a goroutine (and
// thread) of its own, as a program running one env per core would. The
// pool hands conns made and last used in one env to coroutines of the
// other; conet migrates them. gate.NewRedisShared and gate.NewPgPoolShared
// give each env a handle whose gate is half the pool, so the pool never
// waits in Go's scheduler.

const (
	sharedPool       = 8
	sharedCoroutines = 200 // per env
	sharedRounds     = 5
)

// runTwoEnvs runs fn(co, side, i) in sharedCoroutines hooked coroutines of
// each of two envs (side 0 and 1) on goroutines of their own, and fails t
// with the first error. A stall fails the test instead of hanging it.
func runTwoEnvs(t *testing.T, fn func(co *stackful.Co, side, i int) error) {
	t.Helper()
	var mu sync.Mutex
	var errs []error
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for side := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			env, err := stackful.NewEnv()
			if err != nil {
				fail(err)
				return
			}
			defer env.Close()
			env.SetStallTimeout(2 * time.Second)
			env.OnStall(func(s stackful.Stall) {
				if s.Blocked {
					panic(fmt.Sprintf("stall in %s, env %d:\n%s", t.Name(), side, s))
				}
			})
			left := sharedCoroutines
			for i := range sharedCoroutines {
				env.Create(func(co *stackful.Co) {
					defer func() { left-- }()
					co.EnableHook()
					if err := fn(co, side, i); err != nil {
						fail(fmt.Errorf("env %d, coroutine %d: %w", side, i, err))
					}
				}, nil).Resume()
			}
			if left > 0 {
				if err := env.Run(func() bool { return left == 0 }); err != nil {
					fail(err)
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d coroutines failed; first: %v", len(errs), errs[0])
	}
}

// go-redis with one client for two envs: no command fails (retries are off,
// so a conn refused by the other env would show), and the pool keeps its
// conns: none is discarded and redialled.
func TestRedisPoolSharedByTwoEnvs(t *testing.T) {
	addr := servers.Redis(t)
	noLeaks(t)
	opts := gate.RedisOptions(addr, sharedPool)
	opts.MaxRetries = -1
	rcs := gate.NewRedisShared(opts, 2)
	defer rcs[0].Close()
	ctx := context.Background()
	runTwoEnvs(t, func(co *stackful.Co, side, i int) error {
		key := fmt.Sprintf("shared:%d:%d", side, i)
		for r := range sharedRounds {
			v, err := setGet(co, rcs[side], ctx, key, r)
			if err != nil {
				return err
			}
			if v != r {
				return fmt.Errorf("GET %s = %d, want %d", key, v, r)
			}
		}
		return nil
	})
	st := rcs[0].Client().PoolStats()
	t.Logf("pool: %d hits, %d misses, %d conns, %d stale", st.Hits, st.Misses, st.TotalConns, st.StaleConns)
	if st.StaleConns != 0 || st.Misses > sharedPool || st.TotalConns > sharedPool {
		t.Fatalf("the pool replaced conns: %+v", *st)
	}
}

// pgx with one pgxpool for two envs: no query fails, and the pool never
// opens more than its conns (none is replaced after an error).
func TestPgPoolSharedByTwoEnvs(t *testing.T) {
	url := servers.Postgres(t)
	noLeaks(t)
	cfg, err := gate.PgPoolConfig(url, sharedPool)
	if err != nil {
		t.Fatal(err)
	}
	pgs, err := gate.NewPgPoolShared(context.Background(), cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pgs[0].Close()
	ctx := context.Background()
	runTwoEnvs(t, func(co *stackful.Co, side, i int) error {
		for r := range sharedRounds {
			var got string
			err := pgs[side].Do(co, func(pool *pgxpool.Pool) error {
				return pool.QueryRow(ctx, "SELECT $1::text || '/' || $2::text", strconv.Itoa(side*1000+i), strconv.Itoa(r)).Scan(&got)
			})
			if err != nil {
				return err
			}
			if want := fmt.Sprintf("%d/%d", side*1000+i, r); got != want {
				return fmt.Errorf("got %q, want %q", got, want)
			}
			// pgxpool reuses the conn released last: without a pause the
			// next coroutine of the same env takes it back at once, and
			// the envs would rarely trade conns.
			co.Sleep(time.Millisecond)
		}
		return nil
	})
	st := pgs[0].Pool().Stat()
	t.Logf("pool: %d acquires, %d conns made, %d total", st.AcquireCount(), st.NewConnsCount(), st.TotalConns())
	if st.NewConnsCount() > sharedPool {
		t.Fatalf("the pool made %d conns for %d slots: some were replaced", st.NewConnsCount(), sharedPool)
	}
}
