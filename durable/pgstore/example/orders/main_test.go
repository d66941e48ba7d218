package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestMain runs main instead of the tests when ORDERS_MAIN=1: the test
// runs the command as processes of its own binary.
func TestMain(m *testing.M) {
	if os.Getenv("ORDERS_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// orders returns a command running main with args.
func orders(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "ORDERS_MAIN=1")
	return cmd
}

// serverURL returns COGEN_PG_URL (see .ci/dbservers): the test skips
// without a reachable server outside CI and fails with CI=true.
func serverURL(t *testing.T) string {
	url := os.Getenv("COGEN_PG_URL")
	msg := "PostgreSQL absent: set COGEN_PG_URL (source .ci/dbservers; dbservers_start)"
	if url != "" {
		cfg, err := pg.ParseURL(url)
		if err != nil {
			t.Fatalf("COGEN_PG_URL: %v", err)
		}
		c, err := net.DialTimeout("tcp", cfg.Addr, 2*time.Second)
		if err == nil {
			c.Close()
			return url
		}
		msg = fmt.Sprintf("PostgreSQL at %s (COGEN_PG_URL) not reachable: %v", cfg.Addr, err)
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true requires it")
	}
	t.Skip(msg)
	return ""
}

// schemaFor returns a fresh schema name, dropped when the test ends.
func schemaFor(t *testing.T, url string) string {
	var b [6]byte
	rand.Read(b[:])
	schema := "orders_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		if out, err := orders("-url", url, "-schema", schema, "-reset").CombinedOutput(); err != nil {
			t.Errorf("-reset: %v\n%s", err, out)
		}
	})
	return schema
}

// queryInt runs sql, a query of one int8 value.
func queryInt(t *testing.T, url, sql string) int64 {
	cfg, err := pg.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	var out int64
	err = durable.Do(func(co *stackful.Co) error {
		c, err := pg.Connect(co, cfg)
		if err != nil {
			return err
		}
		defer c.Close(co)
		st, err := c.Prepare(co, "", sql)
		if err != nil {
			return err
		}
		var rows pg.Rows
		if err = c.Queue(st); err == nil {
			if err = c.Send(co); err == nil {
				err = c.Next(co, &rows)
			}
		}
		if err == nil {
			out, err = rows.Int(0, 0)
		}
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// results returns order ID -> result text of the Done tasks of schema.
func results(t *testing.T, url, schema string) map[string]string {
	cfg, err := pg.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	err = durable.Do(func(co *stackful.Co) error {
		c, err := pg.Connect(co, cfg)
		if err != nil {
			return err
		}
		defer c.Close(co)
		st, err := c.Prepare(co, "", `SELECT id, convert_from(result, 'UTF8') FROM `+quoteIdent(schema)+`.tasks WHERE state = 'done'`)
		if err != nil {
			return err
		}
		var rows pg.Rows
		if err = c.Queue(st); err == nil {
			if err = c.Send(co); err == nil {
				err = c.Next(co, &rows)
			}
		}
		for i := range rows.Len() {
			out[rows.Text(i, 0)] = rows.Text(i, 1)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// worker starts a worker process on schema; the test kills it at its end
// if it is still running.
func worker(t *testing.T, url, schema, name string) *exec.Cmd {
	cmd := orders("-url", url, "-schema", schema, "-worker", "-name", name, "-lease", "2s", "-poll", "100ms")
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("worker %s:\n%s", name, log.String())
		}
	})
	return cmd
}

// TestKillResume runs the example as its doc says: -start queues n
// orders, worker A runs them until half of them sleep after their second
// line (every other line sleeps 300 ms, so none is near its end), SIGKILL, worker B
// takes over, and -check finds every total and every ledger right. The
// totals are compared with those of an uninterrupted run too (one worker,
// never killed, on a schema of its own). -forget then deletes every
// record.
func TestKillResume(t *testing.T) {
	url := serverURL(t)
	const n, lines = 100, 6
	run := func(schema string, kill bool) {
		q := quoteIdent(schema)
		if out, err := orders("-url", url, "-schema", schema, "-start", fmt.Sprint(n), "-lines", fmt.Sprint(lines), "-nap", "300ms").CombinedOutput(); err != nil {
			t.Fatalf("-start: %v\n%s", err, out)
		}
		a := worker(t, url, schema, "A")
		if kill {
			deadline := time.Now().Add(60 * time.Second)
			// Every other line sleeps: a sleeping order has billed a line
			// or two.
			for queryInt(t, url, `SELECT count(*) FROM `+q+`.tasks WHERE state = 'sleeping'`) < n/2 {
				if time.Now().After(deadline) {
					t.Fatal("worker A has not put half the orders to sleep after 60 s")
				}
				time.Sleep(10 * time.Millisecond)
			}
			a.Process.Kill()
			a.Wait()
			// Tasks caught mid-order: not ended, checkpointed past their
			// first lines, leased by the dead worker.
			mid := queryInt(t, url, `SELECT count(*) FROM `+q+`.tasks WHERE state IN ('running', 'sleeping') AND seq > 2 AND owner = 'A'`)
			if mid < n/2 {
				t.Fatalf("only %d of %d orders were mid-way when A was killed", mid, n)
			}
			t.Logf("killed A with %d of %d orders mid-way", mid, n)
			worker(t, url, schema, "B")
		}
		out, err := orders("-url", url, "-schema", schema, "-check", fmt.Sprint(n), "-lines", fmt.Sprint(lines)).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "every total and ledger right") {
			t.Fatalf("-check: %v\n%s", err, out)
		}
	}
	killed, whole := schemaFor(t, url), schemaFor(t, url)
	run(killed, true)
	run(whole, false)
	got, want := results(t, url, killed), results(t, url, whole)
	if len(got) != n || len(want) != n {
		t.Fatalf("%d and %d orders done, want %d", len(got), len(want), n)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: total %s after the kill, %s uninterrupted", id, got[id], w)
		}
	}
	if out, err := orders("-url", url, "-schema", killed, "-forget").CombinedOutput(); err != nil || !strings.Contains(string(out), fmt.Sprintf("deleted %d done orders", n)) {
		t.Fatalf("-forget: %v\n%s", err, out)
	}
	if left := queryInt(t, url, `SELECT count(*) FROM `+quoteIdent(killed)+`.tasks`); left != 0 {
		t.Errorf("%d task records left after -forget", left)
	}
}
