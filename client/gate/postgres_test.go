package gate_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cogen-go/cogen/client/gate"
	"github.com/cogen-go/cogen/client/gate/internal/servers"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

const pgConns = 10

// newPgPool makes a pool of coroutine conns for env's coroutines, gated,
// and a table of its own for the test.
func newPgPool(t *testing.T, env *stackful.Env) (*gate.PgPool, string) {
	t.Helper()
	cfg, err := gate.PgPoolConfig(servers.Postgres(t), pgConns)
	if err != nil {
		t.Fatal(err)
	}
	table := fmt.Sprintf("cogen_%d", time.Now().UnixNano())
	// Made and closed on the main coroutine: its waits run the loop.
	pg, err := gate.NewPgPool(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := pg.Pool().Exec(ctx, "CREATE TABLE "+table+" (id int PRIMARY KEY, v int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pg.Pool().Exec(ctx, "DROP TABLE "+table)
		pg.Close()
	})
	return pg, table
}

// 1,000 coroutines share ten conns: a prepared statement on the acquired
// conn, an insert and, for every tenth, a transaction that rolls back.
func TestPgCoroutinePool(t *testing.T) {
	servers.Postgres(t)
	noLeaks(t)
	env, _ := stackful.NewEnv()
	defer env.Close()
	pg, table := newPgPool(t, env)
	ctx := context.Background()
	runCoroutinesOn(t, env, coroutines, func(co *stackful.Co, i int) error {
		return pg.Do(co, func(pool *pgxpool.Pool) error { return insertRow(ctx, pool, table, i) })
	})
	var n, total int
	if err := pg.Pool().QueryRow(ctx, "SELECT count(*), coalesce(sum(v - id), 0) FROM "+table).Scan(&n, &total); err != nil {
		t.Fatal(err)
	}
	if n != coroutines-coroutines/10 || total != n {
		t.Fatalf("table has %d rows (sum of v-id %d), want %d", n, total, coroutines-coroutines/10)
	}
}

// insertRow is TestPgCoroutinePool's work for coroutine i: a prepared
// statement on an acquired conn, an insert, and for every tenth a
// transaction that rolls back.
func insertRow(ctx context.Context, pool *pgxpool.Pool, table string, i int) error {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	if _, err := c.Conn().Prepare(ctx, "plus", "SELECT $1::int + $2::int"); err != nil {
		return err
	}
	var sum int
	if err := c.QueryRow(ctx, "plus", i, 1).Scan(&sum); err != nil {
		return err
	}
	if sum != i+1 {
		return fmt.Errorf("plus(%d, 1) = %d", i, sum)
	}
	if i%10 != 0 {
		_, err := c.Exec(ctx, "INSERT INTO "+table+" VALUES ($1, $2)", i, sum)
		return err
	}
	err = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO "+table+" VALUES ($1, $2)", i, sum); err != nil {
			return err
		}
		return errRollback
	})
	if err != errRollback {
		return fmt.Errorf("transaction: %v, want %v", err, errRollback)
	}
	return nil
}

var errRollback = errors.New("roll back")

// A query that outlives its context: pgx's context watcher (a goroutine of
// context.AfterFunc) sets the conn's deadline, which wakes the coroutine
// waiting on the loop; the env's other coroutines ran meanwhile, and the
// pool replaces the broken conn.
func TestPgQueryTimeout(t *testing.T) {
	servers.Postgres(t)
	noLeaks(t)
	env, _ := stackful.NewEnv()
	defer env.Close()
	pg, _ := newPgPool(t, env)
	ticks := 0
	stop := false
	ticker := env.Create(func(co *stackful.Co) {
		for !stop {
			co.Sleep(10 * time.Millisecond)
			ticks++
		}
	}, nil)
	ticker.Resume()
	runCoroutinesOn(t, env, 3, func(co *stackful.Co, i int) error {
		return pg.Do(co, func(pool *pgxpool.Pool) error { return queryTimeout(pool) })
	})
	during := ticks
	stop = true
	env.Run(func() bool { return ticker.Status() == stackful.Dead })
	// Queries that blocked the env would leave the ticker no turn: it must
	// have ticked while they waited. How often is the machine's to say: a
	// loop that gets no core for 50 ms fires the ticker once for the whole
	// gap (10 ticks were required, and 3 came under -race beside two CPU
	// hogs at load 10).
	if during == 0 {
		t.Errorf("another coroutine never ticked during the 200 ms queries")
	}
}

// queryTimeout runs pg_sleep(10) with a 200 ms context: it must fail with
// a timeout within 3 s, and the pool must serve a query after it.
func queryTimeout(pool *pgxpool.Pool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := pool.Exec(ctx, "SELECT pg_sleep(10)")
	if err == nil || !pgconnTimeout(err) {
		return fmt.Errorf("pg_sleep(10) with a 200 ms context: %v", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		return fmt.Errorf("the timeout took %v", d)
	}
	var one int
	return pool.QueryRow(context.Background(), "SELECT 1").Scan(&one)
}

func pgconnTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)
}

// The server drops every connection mid-run (pg_terminate_backend, what a
// restart does to its clients): queries in flight fail, the pool dials
// again, and every coroutine finishes its work with retries.
func TestPgConnectionsDropped(t *testing.T) {
	servers.Postgres(t)
	noLeaks(t)
	env, _ := stackful.NewEnv()
	defer env.Close()
	pg, table := newPgPool(t, env)
	ctx := context.Background()
	killed := false
	failures := 0
	const n = 200
	runCoroutinesOn(t, env, n, func(co *stackful.Co, i int) error {
		if i == n/2 {
			err := pg.Do(co, func(pool *pgxpool.Pool) error {
				_, err := pool.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND backend_type = 'client backend'")
				return err
			})
			if err != nil {
				return err
			}
			killed = true
		}
		for attempt := 0; ; attempt++ {
			err := pg.Do(co, func(pool *pgxpool.Pool) error {
				_, err := pool.Exec(ctx, "INSERT INTO "+table+" VALUES ($1, $1) ON CONFLICT (id) DO NOTHING", i)
				return err
			})
			if err == nil {
				return nil
			}
			failures++
			if attempt == 10 {
				return err
			}
			co.Sleep(20 * time.Millisecond)
		}
	})
	var count int
	if err := pg.Pool().QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if !killed || count != n {
		t.Fatalf("killed %v, %d rows, want %d", killed, count, n)
	}
	t.Logf("%d failed attempts retried", failures)
}

// pgxpool on plain conns, each use offloaded: no semaphore needed, the
// offload limit bounds the calls in flight.
func TestPgOffload(t *testing.T) {
	url := servers.Postgres(t)
	noLeaks(t)
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = pgConns
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	runCoroutines(t, coroutines, func(env *stackful.Env) { env.SetOffloadLimit(pgConns) }, func(co *stackful.Co, i int) error {
		var sum int
		var err error
		co.Offload(func() { err = pool.QueryRow(ctx, "SELECT $1::int * 2", i).Scan(&sum) })
		if err == nil && sum != 2*i {
			err = fmt.Errorf("%d * 2 = %d", i, sum)
		}
		return err
	})
}
