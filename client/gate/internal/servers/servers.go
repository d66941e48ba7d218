// Package servers finds the Redis and PostgreSQL servers the driver tests
// run against: the addresses .ci/dbservers exports. Outside CI a test whose
// server is absent is skipped with a message saying how to provide one;
// with CI=true it fails, since CI must run it.
package servers

import (
	"net"
	"net/url"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Redis returns the address (host:port) of the Redis server in
// COGEN_REDIS_ADDR, after checking that it accepts connections.
func Redis(t testing.TB) string {
	t.Helper()
	return need(t, "COGEN_REDIS_ADDR", "redis-server", os.Getenv("COGEN_REDIS_ADDR"))
}

// RedisServer returns the path of a redis-server binary (COGEN_REDIS_SERVER,
// else redis-server on PATH), for tests that start and restart a private
// server.
func RedisServer(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("COGEN_REDIS_SERVER"); p != "" {
		return p
	}
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p
	}
	return missing(t, "COGEN_REDIS_SERVER", "redis-server binary")
}

// Postgres returns the connection URL of the PostgreSQL server in
// COGEN_PG_URL (postgres://user@host:port/db?sslmode=disable), after
// checking that its port accepts connections.
func Postgres(t testing.TB) string {
	t.Helper()
	u := os.Getenv("COGEN_PG_URL")
	if u == "" {
		return missing(t, "COGEN_PG_URL", "PostgreSQL server")
	}
	host := hostPort(u)
	need(t, "COGEN_PG_URL", "PostgreSQL server", host)
	return u
}

func need(t testing.TB, env, what, addr string) string {
	t.Helper()
	if addr == "" {
		return missing(t, env, what)
	}
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s at %s (%s) is not reachable: %v", what, addr, env, err)
		}
		t.Skipf("%s at %s (%s) is not reachable: %v", what, addr, env, err)
	}
	c.Close()
	return addr
}

func missing(t testing.TB, env, what string) string {
	t.Helper()
	msg := what + " absent: set " + env + " (source .ci/dbservers; dbservers_start starts throwaway servers)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true requires it")
	}
	t.Skip(msg)
	return ""
}

// hostPort extracts host:port from a postgres:// URL.
func hostPort(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Host
}

// PostgresRestart returns the shell command lines (for sh -c) that stop
// the PostgreSQL server of [Postgres] and start it again on the same port
// (COGEN_PG_STOP, COGEN_PG_START; .ci/dbservers exports them), for tests
// that restart it mid-run. Absent, the test is skipped outside CI and
// fails with CI=true.
func PostgresRestart(t testing.TB) (stop, start string) {
	t.Helper()
	stop, start = os.Getenv("COGEN_PG_STOP"), os.Getenv("COGEN_PG_START")
	if stop == "" || start == "" {
		missing(t, "COGEN_PG_STOP and COGEN_PG_START", "command to restart the PostgreSQL server")
	}
	return stop, start
}
