package gate_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/client/gate"
	"github.com/cogen-go/cogen/client/gate/internal/servers"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/hook"
	"github.com/redis/go-redis/v9"
)

const coroutines = 1000

// go-redis on coroutine conns: every call waits on the loop; the gate keeps
// the pool from ever waiting in Go's scheduler.
func TestRedisCoroutineConns(t *testing.T) {
	addr := servers.Redis(t)
	noLeaks(t)
	const pool = 16
	rc := gate.NewRedis(gate.RedisOptions(addr, pool))
	defer rc.Close()
	ctx := context.Background()
	runCoroutines(t, coroutines, nil, func(co *stackful.Co, i int) error {
		key := "co:" + strconv.Itoa(i)
		for j := range 5 {
			v, err := setGet(co, rc, ctx, key, j)
			if err != nil {
				return err
			}
			if v != j {
				return fmt.Errorf("GET %s = %d, want %d", key, v, j)
			}
		}
		return nil
	})
}

// setGet sets key to v and reads it back, through the gate.
func setGet(co *stackful.Co, rc *gate.Redis, ctx context.Context, key string, v int) (got int, err error) {
	err = rc.Do(co, func(c *redis.Client) error {
		if err := c.Set(ctx, key, v, 0).Err(); err != nil {
			return err
		}
		got, err = c.Get(ctx, key).Int()
		return err
	})
	return got, err
}

// go-redis on plain conns, each call offloaded: nothing of go-redis runs
// on a coroutine, so nothing of it can stall the env.
func TestRedisOffload(t *testing.T) {
	addr := servers.Redis(t)
	noLeaks(t)
	rc := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 16, Dialer: (&net.Dialer{}).DialContext})
	defer rc.Close()
	ctx := context.Background()
	runCoroutines(t, coroutines, nil, func(co *stackful.Co, i int) error {
		key := "off:" + strconv.Itoa(i)
		var v int
		var err error
		hook.Offload(func() {
			if err = rc.Set(ctx, key, i, 0).Err(); err == nil {
				v, err = rc.Get(ctx, key).Int()
			}
		})
		if err == nil && v != i {
			err = fmt.Errorf("GET %s = %d, want %d", key, v, i)
		}
		return err
	})
}

// The probe: go-redis's pool, exhausted, waits in Go's scheduler
// (a select in its semaphore) while the conns' holders are suspended on
// the loop. The watchdog reports the stall; the waiter's context ends it
// with an error.
func TestRedisPoolStallReported(t *testing.T) {
	addr := servers.Redis(t)
	noLeaks(t)
	opt := gate.RedisOptions(addr, 1)
	rc := redis.NewClient(opt) // no gate: what gate.NewRedis prevents
	defer rc.Close()
	var mu sync.Mutex
	var stalls []stackful.Stall
	env, _ := stackful.NewEnv()
	defer env.Close()
	env.SetStallTimeout(300 * time.Millisecond)
	env.OnStall(func(s stackful.Stall) { mu.Lock(); stalls = append(stalls, s); mu.Unlock() })
	ctx := context.Background()
	errs := make([]error, 2)
	done := 0
	for i := range 2 {
		env.Create(func(co *stackful.Co) {
			co.EnableHook()
			// BLPOP holds the only conn on the loop for 1 s (its
			// server-side timeout), while the other coroutine asks the
			// pool for a conn and waits in Go's scheduler.
			ctx := ctx
			if i == 1 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 800*time.Millisecond)
				defer cancel()
			}
			_, errs[i] = rc.BLPop(ctx, time.Second, "cogen:none").Result()
			done++
		}, nil).Resume()
	}
	env.Run(func() bool { return done == 2 })
	mu.Lock()
	defer mu.Unlock()
	if len(stalls) == 0 {
		t.Fatal("no stall reported")
	}
	s := stalls[0]
	if !s.Blocked || s.State != "select" || !strings.Contains(s.Stack, "go-redis") {
		t.Errorf("stall %+v", s)
	}
	if !errors.Is(errs[1], context.DeadlineExceeded) || !errors.Is(errs[0], redis.Nil) {
		t.Errorf("errors %v, want redis.Nil (BLPOP timed out) and the waiter's context deadline", errs)
	}
}

// A private redis-server stops and starts again on the same port mid-run:
// commands in flight fail, the pool dials again, every coroutine finishes
// with retries.
func TestRedisServerRestart(t *testing.T) {
	bin := servers.RedisServer(t)
	noLeaks(t)
	srv := startRedis(t, bin, "")
	opt := gate.RedisOptions(srv.addr, 8)
	opt.MaxRetries = -1 // the test retries itself, and counts
	rc := gate.NewRedis(opt)
	defer rc.Close()
	ctx := context.Background()
	const n = 200
	restarted, failures := false, 0
	runCoroutines(t, n, nil, func(co *stackful.Co, i int) error {
		if i == n/2 {
			// Offloaded: stopping and starting processes blocks in Go.
			co.Offload(func() { srv.stop(t); srv = startRedis(t, bin, srv.port) })
			restarted = true
		}
		key := "restart:" + strconv.Itoa(i)
		for attempt := 0; ; attempt++ {
			v, err := setGet(co, rc, ctx, key, i)
			if err == nil && v == i {
				return nil
			}
			failures++
			if attempt == 20 {
				return fmt.Errorf("after %d attempts: %v (value %d)", attempt, err, v)
			}
			co.Sleep(50 * time.Millisecond)
		}
	})
	if !restarted {
		t.Fatal("not restarted")
	}
	t.Logf("%d failed attempts retried", failures)
	srv.stop(t)
}

// The same probe through gate.NewRedis: the second coroutine waits for the
// only conn in the gate, on the loop, so the env keeps running (a ticker
// coroutine ticks all along), no stall is reported, and both BLPOPs end
// with redis.Nil after their 1 s server-side timeout, one after the other.
func TestRedisGateNoStall(t *testing.T) {
	addr := servers.Redis(t)
	noLeaks(t)
	rc := gate.NewRedis(gate.RedisOptions(addr, 1))
	defer rc.Close()
	env, _ := stackful.NewEnv()
	defer env.Close()
	env.SetStallTimeout(300 * time.Millisecond)
	var stalls atomic.Int32 // OnStall runs on the watchdog's goroutine
	env.OnStall(func(s stackful.Stall) { stalls.Add(1) })
	ctx := context.Background()
	errs := make([]error, 2)
	done, ticks := 0, 0
	env.Create(func(co *stackful.Co) {
		for done < 2 {
			co.Sleep(10 * time.Millisecond)
			ticks++
		}
	}, nil).Resume()
	t0 := time.Now()
	for i := range 2 {
		env.Create(func(co *stackful.Co) {
			co.EnableHook()
			errs[i] = rc.Do(co, func(c *redis.Client) error {
				return c.BLPop(ctx, time.Second, "cogen:none").Err()
			})
			done++
		}, nil).Resume()
	}
	env.Run(func() bool { return done == 2 })
	elapsed := time.Since(t0)
	if !errors.Is(errs[0], redis.Nil) || !errors.Is(errs[1], redis.Nil) {
		t.Errorf("errors %v, want redis.Nil twice (each BLPOP timed out on the server)", errs)
	}
	if elapsed < 2*time.Second {
		t.Errorf("both BLPOPs done in %v: they did not take turns on the one conn", elapsed)
	}
	if ticks < 20 {
		t.Errorf("the ticker ticked %d times in %v: the env was frozen", ticks, elapsed)
	}
	if n := stalls.Load(); n != 0 {
		t.Errorf("%d stalls reported", n)
	}
}
