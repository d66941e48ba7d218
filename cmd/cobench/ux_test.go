//go:build unix

package main

import (
	"bytes"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestProgressPhases: a phase prints a started line and a finished line
// with its elapsed time, its rows and its skipped rows' reasons; a failed
// phase says so.
func TestProgressPhases(t *testing.T) {
	var log bytes.Buffer
	p := newProgress(&log)
	end := p.begin("build dbload from client/gate")
	end(nil, nil)
	end = p.begin("db")
	end([]Row{{Model: "resp stackful"}, skipRow("db", "GET", "no redis-server")}, nil)
	end = p.begin("echo")
	end(nil, errors.New("boom"))
	for _, re := range []string{
		`(?m)^cobench: +\d+\.\ds build dbload from client/gate: started$`,
		`(?m)^cobench: +\d+\.\ds build dbload from client/gate: finished in \d+\.\ds$`,
		`(?m)^cobench: +\d+\.\ds db: started$`,
		`(?m)^cobench: +\d+\.\ds db: finished in \d+\.\ds, 1 rows, 1 skipped \(skipped: no redis-server\)$`,
		`(?m)^cobench: +\d+\.\ds echo: failed after \d+\.\ds$`,
	} {
		if !regexp.MustCompile(re).MatchString(log.String()) {
			t.Errorf("no line matching %s in the progress log:\n%s", re, log.String())
		}
	}
}

// TestSkippedGroup: with no redis-server to start, the db group is a row of
// the table that says why it was not measured, the progress log announces
// the group's start and end, and the row is never a base or a verdict.
func TestSkippedGroup(t *testing.T) {
	t.Setenv("COGEN_REDIS_SERVER", "")
	t.Setenv("PATH", t.TempDir()) // no redis-server on it
	var stdout, stderr bytes.Buffer
	if code := cobench([]string{"-quick", "-only=db", "-svg=off"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	row := "| db | GET round trips against redis-server | (not measured) | — |  |  |  | skipped: no redis-server installed (apt-get install redis-server, or set COGEN_REDIS_SERVER) |"
	if !strings.Contains(stdout.String(), row+"\n") {
		t.Errorf("no skipped row %q in the table:\n%s", row, stdout.String())
	}
	for _, want := range []string{"db: started\n", "db: finished in ", ", 0 rows, 1 skipped (skipped: no redis-server installed"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no %q in the progress log:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stdout.String(), "- **db**") {
		t.Errorf("a verdict for a group that was not measured:\n%s", stdout.String())
	}
}

// TestQuickSkipsGoRedis: -quick measures the db group's client/resp rows
// and leaves a skipped row, with the reason, for each go-redis model it
// does not build.
func TestQuickSkipsGoRedis(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("no redis-server")
	}
	var stdout, stderr bytes.Buffer
	if code := cobench([]string{"-quick", "-only=db", "-format=csv", "-svg=off"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, model := range []string{"go-redis goroutines", "go-redis stackful (conet)"} {
		want := `db,"GET round trips per second, 50 conns, one GET outstanding each",` + model + ",,,0,false,,skipped: -quick does not build client/gate (run without -quick)\n"
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("no skipped row %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stdout.String(), ",resp stackless (generated),") {
		t.Errorf("no measured resp row:\n%s", stdout.String())
	}
}
