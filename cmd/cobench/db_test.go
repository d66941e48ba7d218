//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func haveRedisServer() bool {
	if os.Getenv("COGEN_REDIS_SERVER") != "" {
		return true
	}
	_, err := exec.LookPath("redis-server")
	return err == nil
}

// TestDB runs `cobench -quick -only=db`: with a redis-server installed the
// resp rows of both models are there, valued, and a skipped row with the
// reason stands for each go-redis model; without one the group is a
// skipped row with a note (CI=true requires the server).
func TestDB(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := cobench([]string{"-quick", "-only=db", "-format=json", "-svg=off"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, stdout.String())
	}
	if !haveRedisServer() {
		if os.Getenv("CI") == "true" {
			t.Fatal("no redis-server installed; CI=true requires it")
		}
		if len(rep.Rows) != 1 || !rep.Rows[0].Skipped || !strings.Contains(stderr.String(), "db: skipped: no redis-server installed") {
			t.Errorf("without redis-server: %d rows, stderr:\n%s", len(rep.Rows), stderr.String())
		}
		t.Skip("no redis-server installed")
	}
	for _, model := range []string{"resp stackful", "resp stackless (generated)"} {
		n := 0
		for _, r := range rep.Rows {
			if r.Group == "db" && r.Model == model {
				n++
				if !(r.Value > 0) {
					t.Errorf("row without a value: %+v", r)
				}
			}
		}
		if n != 3 {
			t.Errorf("%d rows for %s, want 3", n, model)
		}
	}
	for _, r := range rep.Rows {
		if r.Base != (r.Model == "resp stackless (generated)") && !r.Skipped {
			t.Errorf("base row without go-redis: %+v", r)
		}
	}
	for _, model := range []string{"go-redis goroutines", "go-redis stackful (conet)"} {
		i := slices.IndexFunc(rep.Rows, func(r Row) bool { return r.Model == model })
		if i < 0 || !rep.Rows[i].Skipped || rep.Rows[i].Note != "skipped: -quick does not build client/gate (run without -quick)" {
			t.Errorf("-quick: no skipped row for %s: %+v", model, rep.Rows)
		}
	}
	if slices.ContainsFunc(rep.Rows, func(r Row) bool { return strings.HasPrefix(r.Model, "go-redis") && !r.Skipped }) ||
		!strings.Contains(stderr.String(), "go-redis rows skipped") {
		t.Errorf("-quick ran the go-redis rows; stderr:\n%s", stderr.String())
	}
}
