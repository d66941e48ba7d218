package pgstore

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// serverURL returns COGEN_PG_URL (see .ci/dbservers): the test skips
// without a reachable server outside CI and fails with CI=true.
func serverURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv("COGEN_PG_URL")
	msg := ""
	if url == "" {
		msg = "PostgreSQL absent: set COGEN_PG_URL (source .ci/dbservers; dbservers_start)"
	} else if cfg, err := pg.ParseURL(url); err != nil {
		t.Fatalf("COGEN_PG_URL: %v", err)
	} else if c, err := net.DialTimeout("tcp", cfg.Addr, 2*time.Second); err != nil {
		msg = fmt.Sprintf("PostgreSQL at %s (COGEN_PG_URL) not reachable: %v", cfg.Addr, err)
	} else {
		c.Close()
		return url
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true requires it")
	}
	t.Skip(msg)
	return ""
}

// inCo runs fn in a coroutine of a throwaway env and waits for it.
func inCo(t testing.TB, fn func(co *stackful.Co)) {
	t.Helper()
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	co := env.Create(fn, nil)
	co.Resume()
	if err := env.Run(func() bool { return co.Status() == stackful.Dead }); err != nil {
		t.Fatal(err)
	}
}

// freshSchema returns a schema name of its own for a test, dropped with
// its tables when the test ends.
func freshSchema(t testing.TB, url string) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	schema := "pgstore_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		if t.Failed() && os.Getenv("COGEN_PG_KEEP") != "" {
			t.Logf("schema %s kept (COGEN_PG_KEEP)", schema)
			return
		}
		sqlExec(t, url, "DROP SCHEMA IF EXISTS "+quoteIdent(schema)+" CASCADE")
	})
	return schema
}

// sqlExec runs sql (simple protocol) on a conn of its own.
func sqlExec(t testing.TB, url, sql string) {
	t.Helper()
	cfg, err := pg.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	inCo(t, func(co *stackful.Co) {
		c, err := pg.Connect(co, cfg)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(co)
		if _, err := c.Exec(co, sql); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	})
}

// openTest opens a store on a fresh schema, closed when the test ends.
func openTest(t testing.TB) *Store {
	t.Helper()
	url := serverURL(t)
	s, err := OpenURL(url, Options{Schema: freshSchema(t, url)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// query runs sql (extended protocol, no parameters) on a conn of its own
// and returns its rows (int columns in binary: read them with Int).
func query(t testing.TB, url, sql string) *pg.Rows {
	t.Helper()
	cfg, err := pg.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rows := &pg.Rows{}
	inCo(t, func(co *stackful.Co) {
		c, err := pg.Connect(co, cfg)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(co)
		st, err := c.Prepare(co, "", sql)
		if err == nil {
			err = c.Queue(st)
		}
		if err == nil {
			err = c.Send(co)
		}
		if err == nil {
			err = c.Next(co, rows)
		}
		if err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	})
	return rows
}

// queryInt runs a query of one int8 value.
func queryInt(t testing.TB, url, sql string) int64 {
	t.Helper()
	rows := query(t, url, sql)
	if rows.Len() != 1 {
		t.Fatalf("%s: %d rows", sql, rows.Len())
	}
	n, err := rows.Int(0, 0)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestMain fails the package if the tests leave descriptors open: every
// conn a store dialled must be closed by its Close (or its call's end).
func TestMain(m *testing.M) {
	// Go's runtime poller opens its own descriptors on first use (by
	// serverURL's probe): open them before counting.
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	before := openFDs()
	code := m.Run()
	if workerDir != "" {
		os.RemoveAll(workerDir)
	}
	if after := openFDs(); code == 0 && after > before {
		fmt.Fprintf(os.Stderr, "pgstore: %d descriptors open after the tests, %d before\n", after, before)
		code = 1
	}
	os.Exit(code)
}

func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(ents)
}
