package gate_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/client/gate/internal/servers"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The phases of a server restart, as the coroutines of
// TestPgServerRestart see them.
const (
	pgUp       = iota // before the stop
	pgStopping        // pg_ctl stop -m fast running
	pgDown            // stopped: nothing listens on the port
	pgStarting        // pg_ctl start running
	pgRestarted
	pgAborted // stop or start failed: the workers give up
)

// The PostgreSQL server itself stops (pg_ctl stop -m fast) and starts
// again on the same port while 1,000 coroutines query it through a pool of
// coroutine conns. Every query that begins and ends while the server is
// down fails with an error, promptly (a 5 s context catches a hang; the
// stall watchdog of runCoroutinesOn catches a coroutine blocked in Go); a
// ticker coroutine keeps ticking through the outage (slowly: every failed
// dial freezes the env for a moment, see the package doc); after the start,
// every coroutine's query succeeds within a few retries (the pool drops
// its dead conns and dials again); nothing is left behind.
func TestPgServerRestart(t *testing.T) {
	servers.Postgres(t)
	stopCmd, startCmd := servers.PostgresRestart(t)
	noLeaks(t)
	env, _ := stackful.NewEnv()
	defer env.Close()
	pg, _ := newPgPool(t, env)
	phase := pgUp
	// Runs before newPgPool's cleanup, which needs the server: a test that
	// failed mid-outage leaves it running for the next.
	t.Cleanup(func() {
		if phase == pgStopping || phase == pgDown || phase == pgStarting {
			if out, err := exec.Command("/bin/sh", "-c", startCmd).CombinedOutput(); err != nil {
				t.Errorf("starting the server again: %v\n%s", err, out)
			}
		}
	})

	ticks, ticksDown := 0, 0
	ticker := env.Create(func(co *stackful.Co) {
		for phase < pgRestarted {
			co.Sleep(10 * time.Millisecond)
			ticks++
			if phase == pgDown {
				ticksDown++
			}
		}
	}, nil)
	ticker.Resume()

	var (
		okBefore, okAfter int
		failDown, okDown  int
		failOther         int
		outage            time.Duration
		errKinds          = map[string]int{}
	)
	sh := func(co *stackful.Co, what, cmd string) error {
		var out []byte
		var err error
		// Offloaded: running a process blocks in Go.
		co.Offload(func() { out, err = exec.Command("/bin/sh", "-c", cmd).CombinedOutput() })
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", what, err, out)
		}
		return nil
	}
	// Coroutine 0 restarts the server; the others query.
	control := func(co *stackful.Co) error {
		for okBefore < coroutines {
			co.Sleep(5 * time.Millisecond)
		}
		phase = pgStopping
		if err := sh(co, "pg_ctl stop", stopCmd); err != nil {
			phase = pgAborted
			return err
		}
		phase = pgDown
		t0 := time.Now()
		// At least 200 ms down, and long enough for many queries to fail.
		for time.Since(t0) < 200*time.Millisecond || failDown < coroutines && time.Since(t0) < 5*time.Second {
			co.Sleep(10 * time.Millisecond)
		}
		phase = pgStarting
		outage = time.Since(t0)
		if err := sh(co, "pg_ctl start", startCmd); err != nil {
			phase = pgAborted
			return err
		}
		phase = pgRestarted
		return nil
	}
	runCoroutinesOn(t, env, coroutines+1, func(co *stackful.Co, i int) error {
		if i == 0 {
			return control(co)
		}
		for attempt, after := 0, 0; phase != pgAborted; attempt++ {
			var p0, p1 int
			var v int
			err := pg.Do(co, func(pool *pgxpool.Pool) error {
				p0 = phase
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				err := pool.QueryRow(ctx, "SELECT $1::int", i).Scan(&v)
				p1 = phase
				return err
			})
			switch {
			case errors.Is(err, context.DeadlineExceeded) || pgconnTimeout(err):
				return fmt.Errorf("query in phase %d..%d hung for 5 s: %v", p0, p1, err)
			case err == nil && v != i:
				return fmt.Errorf("SELECT %d returned %d", i, v)
			case err == nil && p0 == pgDown && p1 == pgDown:
				okDown++
			case err == nil && p0 == pgRestarted:
				okAfter++
				return nil
			case err == nil:
				okBefore++
			case p0 == pgDown && p1 == pgDown:
				failDown++
				errKinds[errKind(err)]++
			default:
				failOther++
				errKinds[errKind(err)]++
			}
			if p0 == pgRestarted {
				if after++; after == 20 {
					return fmt.Errorf("%d attempts after the restart: %v", after, err)
				}
			}
			if attempt == 5000 {
				return fmt.Errorf("no restart after %d attempts (phase %d)", attempt, phase)
			}
			if err != nil {
				co.Sleep(50 * time.Millisecond)
			} else {
				co.Sleep(20 * time.Millisecond)
			}
		}
		return nil
	})
	env.Run(func() bool { return ticker.Status() == stackful.Dead })

	kinds := make([]string, 0, len(errKinds))
	for k, n := range errKinds {
		kinds = append(kinds, fmt.Sprintf("%d× %s", n, k))
	}
	slices.Sort(kinds)
	t.Logf("outage %v: %d queries failed while down, %d failed around the stop and start, %d ok before, %d ok after; %d ticks (%d while down)\nerrors:\n  %s",
		outage.Round(time.Millisecond), failDown, failOther, okBefore, okAfter, ticks, ticksDown, strings.Join(kinds, "\n  "))
	if okDown != 0 {
		t.Errorf("%d queries succeeded while the server was down", okDown)
	}
	if failDown == 0 {
		t.Errorf("no query ran while the server was down")
	}
	if okAfter != coroutines {
		t.Errorf("%d coroutines succeeded after the restart, want %d", okAfter, coroutines)
	}
	// The env kept running while the server was down: the ticker ticked
	// then. How often is the machine's business (a loop that gets no core
	// for 100 ms fires the 10 ms ticker once for the gap: round 10 of the
	// load campaign, -race beside two CPU hogs, saw 2 ticks in 676 ms where
	// 3 were required); a frozen env ticks 0 times.
	if ticksDown == 0 {
		t.Errorf("the ticker never ticked in the %v outage: the env was blocked", outage)
	}
	var one int
	if err := pg.Pool().QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
}

// errKind is an error's message without the numbers that vary (ports,
// pids), short enough to count kinds by.
func errKind(err error) string {
	s := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '#'
		}
		return r
	}, err.Error())
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
