package pg

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// poolStats records how many workers hold a conn at once.
type poolStats struct {
	holding, most, done int
	errs                []error
}

// worker takes a conn from the pool, runs a query that sleeps 10 ms on the
// server (the conn is held meanwhile), and gives the conn back.
//
//co:stackless
func worker(co *stackful.Co, p *Pool, id int, st *poolStats) {
	c, err := p.Acquire(co)
	if err != nil {
		st.errs = append(st.errs, err)
		st.done++
		return
	}
	st.holding++
	st.most = max(st.most, st.holding)
	c.Queue(c.Stmt("sleep"), Int(int64(id)))
	err = c.Send(co)
	var rows Rows
	if err == nil {
		err = c.Next(co, &rows)
	}
	if err == nil {
		if v, _ := rows.Int(0, 0); v != int64(id) {
			err = fmt.Errorf("worker %d got %d", id, v)
		}
	}
	if err != nil {
		st.errs = append(st.errs, err)
	}
	st.holding--
	p.Release(co, c)
	st.done++
}

const sleepSQL = "SELECT $1::int, pg_sleep(0.01)"

// TestPoolWaits: 40 workers share a pool of 3 conns in one env (or on one
// loop): those that find every conn in use suspend in Acquire while the
// holders' queries run, nobody holds more than the pool, the pool dials 3
// conns, and every worker gets its own answer.
func TestPoolWaits(t *testing.T) {
	cfg := serverConfig(t)
	const workers, size = 40, 3
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			p := NewPool(cfg, size, StmtDef{"sleep", sleepSQL})
			st := &poolStats{}
			switch m.name {
			case "stackful":
				env, err := stackful.NewEnv()
				if err != nil {
					t.Fatal(err)
				}
				for i := range workers {
					env.Create(func(co *stackful.Co) { worker(co, p, i, st) }, nil).Resume()
				}
				env.Run(func() bool { return st.done == workers })
				closer := env.Create(func(co *stackful.Co) { p.Close(co) }, nil)
				closer.Resume()
				env.Run(func() bool { return closer.Status() == stackful.Dead })
				env.Close()
			case "stackless":
				l, err := loop.New()
				if err != nil {
					t.Fatal(err)
				}
				tasks := make([]*stackless.Task, workers)
				for i := range workers {
					tasks[i] = stackless.Spawn(l, newWorkerFrame(p, i, st))
				}
				for _, task := range tasks {
					if err := stackless.Run(l, task); err != nil {
						t.Fatal(err)
					}
				}
				if err := stackless.Run(l, stackless.Spawn(l, NewPoolCloseFrame(p))); err != nil {
					t.Fatal(err)
				}
				l.Close()
			}
			if len(st.errs) > 0 || st.done != workers {
				t.Fatalf("%d of %d done, errors: %v", st.done, workers, st.errs)
			}
			if st.most != size || p.Dials() != size || p.Idle() != 0 {
				t.Fatalf("at most %d held at once, %d dials, %d idle after Close; want %d, %d, 0", st.most, p.Dials(), p.Idle(), size, size)
			}
		})
	}
}

// terminate ends the session of pid from another conn.
//
//co:stackless
func terminate(co *stackful.Co, cfg Config, pid uint32) error {
	c, err := Connect(co, cfg)
	if err != nil {
		return err
	}
	_, err = c.Exec(co, fmt.Sprintf("SELECT pg_terminate_backend(%d)", pid))
	c.Close(co)
	return err
}

// dropped runs a query on a pool conn whose session another conn ends:
// the query fails, the conn is closed on release, and the next Acquire
// dials a new one that works.
//
//co:stackless
func dropped(co *stackful.Co, cfg Config) error {
	p := NewPool(cfg, 1, StmtDef{"sleep", sleepSQL})
	c, err := p.Acquire(co)
	if err != nil {
		return err
	}
	if err := terminate(co, cfg, c.PID()); err != nil {
		return err
	}
	c.Queue(c.Stmt("sleep"), Int(1))
	err = c.Send(co)
	var rows Rows
	if err == nil {
		err = c.Next(co, &rows)
	}
	if err == nil || c.Err() == nil {
		return fmt.Errorf("a query on a terminated session: %v (conn error %v)", err, c.Err())
	}
	p.Release(co, c)
	c, err = p.Acquire(co)
	if err != nil {
		return fmt.Errorf("Acquire after a dropped conn: %w", err)
	}
	c.Queue(c.Stmt("sleep"), Int(2))
	err = c.Send(co)
	if err == nil {
		err = c.Next(co, &rows)
	}
	p.Release(co, c)
	p.Close(co)
	if err != nil || p.Dials() != 2 {
		return fmt.Errorf("the pool after a dropped conn: %v, %d dials", err, p.Dials())
	}
	return nil
}

func TestDroppedConn(t *testing.T) {
	cfg := serverConfig(t)
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			var err error
			f := newDroppedFrame(cfg)
			m.run(t, func(co *stackful.Co) { err = dropped(co, cfg) }, f)
			if m.name == "stackless" {
				err = f.Result()
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestServerRestart stops PostgreSQL under a pool with idle conns (see
// COGEN_PG_STOP in .ci/dbservers): while it is down a worker fails at
// once with an error and the env goes on; after the start the stale conns
// fail their next query and are dropped, and the pool dials new ones.
func TestServerRestart(t *testing.T) {
	cfg := serverConfig(t)
	stop, start := os.Getenv("COGEN_PG_STOP"), os.Getenv("COGEN_PG_START")
	if stop == "" || start == "" {
		t.Skip("COGEN_PG_STOP and COGEN_PG_START are not set (see .ci/dbservers)")
	}
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	p := NewPool(cfg, 4, StmtDef{"sleep", sleepSQL})
	round := func(n int) *poolStats {
		st := &poolStats{}
		for i := range n {
			env.Create(func(co *stackful.Co) { worker(co, p, i, st) }, nil).Resume()
		}
		env.Run(func() bool { return st.done == n })
		return st
	}
	if st := round(8); len(st.errs) != 0 || p.Idle() != 4 {
		t.Fatalf("before the restart: %v, %d idle", st.errs, p.Idle())
	}
	sh := func(cmd string) {
		if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
	}
	sh(stop)
	restarted := false
	defer func() {
		if !restarted {
			sh(start)
		}
	}()
	// The 4 idle conns are dead: their queries fail; the dials that follow
	// are refused.
	if st := round(8); len(st.errs) != 8 {
		t.Fatalf("with the server down: %d of 8 failed, want all: %v", len(st.errs), st.errs)
	}
	sh(start)
	restarted = true
	if st := round(8); len(st.errs) != 0 {
		t.Fatalf("after the restart: %v", st.errs)
	}
	if p.Idle() != 4 {
		t.Fatalf("%d idle after the restart, want 4", p.Idle())
	}
	closer := env.Create(func(co *stackful.Co) { p.Close(co) }, nil)
	closer.Resume()
	env.Run(func() bool { return closer.Status() == stackful.Dead })
}
