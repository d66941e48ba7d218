package db_test

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"

	"github.com/cogen-go/cogen/examples/db"
	"github.com/cogen-go/cogen/examples/db/internal/servers"
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
	rc := redis.NewClient(db.RedisOptions(addr, pool))
	defer rc.Close()
	gate := db.NewGate(pool)
	ctx := context.Background()
	runCoroutines(t, coroutines, nil, func(co *stackful.Co, i int) error {
		key := "co:" + strconv.Itoa(i)
		for j := range 5 {
			gate.Enter(co)
			err := rc.Set(ctx, key, j, 0).Err()
			var v int
			if err == nil {
				v, err = rc.Get(ctx, key).Int()
			}
			gate.Leave()
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
