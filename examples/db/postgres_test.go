package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cogen-go/cogen/examples/db"
	"github.com/cogen-go/cogen/examples/db/internal/servers"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const pgConns = 10

// newPgPool makes a pool of coroutine conns for env's coroutines and a gate
// of its size, and a table of its own for the test.
func newPgPool(t *testing.T, env *stackful.Env) (*pgxpool.Pool, *db.Gate, string) {
	t.Helper()
	cfg, err := db.PgPoolConfig(servers.Postgres(t), pgConns)
	if err != nil {
		t.Fatal(err)
	}
	var pool *pgxpool.Pool
	table := fmt.Sprintf("cogen_%d", time.Now().UnixNano())
	// Made and closed on the main coroutine: its waits run the loop.
	pool, err = pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := pool.Exec(ctx, "CREATE TABLE "+table+" (id int PRIMARY KEY, v int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pool.Exec(ctx, "DROP TABLE "+table)
		pool.Close()
	})
	return pool, db.NewGate(pgConns), table
}

// 1,000 coroutines share ten conns: a prepared statement on the acquired
// conn, an insert and, for every tenth, a transaction that rolls back.
func TestPgCoroutinePool(t *testing.T) {
	servers.Postgres(t)
	noLeaks(t)
	env, _ := stackful.NewEnv()
	defer env.Close()
	pool, gate, table := newPgPool(t, env)
	ctx := context.Background()
	runCoroutinesOn(t, env, coroutines, func(co *stackful.Co, i int) error {
		gate.Enter(co)
		defer gate.Leave()
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
	})
	var n, total int
	if err := pool.QueryRow(ctx, "SELECT count(*), coalesce(sum(v - id), 0) FROM "+table).Scan(&n, &total); err != nil {
		t.Fatal(err)
	}
	if n != coroutines-coroutines/10 || total != n {
		t.Fatalf("table has %d rows (sum of v-id %d), want %d", n, total, coroutines-coroutines/10)
	}
}

var errRollback = errors.New("roll back")
