//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/wrk"
)

// TestPeers runs `cobench -quick -peers -wrk -only=echo,http`: the peers'
// binary is built from bench/peers (gnet, netpoll, nbio and fasthttp from
// the module proxy, so only in CI or when asked with COBENCH_PEERS=1),
// every peer row is there with a value, gnet and nbio answer with one read
// and one write per request, every hello server has its four wrk rows
// (with wrk installed: CI installs it), whose requests/s and CPU notes
// compare with the built-in client's, and the binary is removed
// afterwards.
func TestPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("a quick run with the peers")
	}
	if os.Getenv("CI") != "true" && os.Getenv("COBENCH_PEERS") != "1" {
		t.Skip("builds bench/peers with gnet and fasthttp from the module proxy: set COBENCH_PEERS=1 (CI=true runs it)")
	}
	var stdout, stderr bytes.Buffer
	if code := cobench([]string{"-quick", "-peers", "-wrk", "-only=echo,http", "-format=json", "-svg=off"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, stdout.String())
	}
	// Echo at 2 connection counts: CPU, requests/s and system calls (not
	// netpoll's: its sendmsg is not counted); HTTP: hello, and hello after
	// a 1 ms wait.
	// With wrk, each hello server has 4 rows more.
	wrkRows := 0
	switch {
	case wrk.Installed():
		wrkRows = 4
	case os.Getenv("CI") == "true":
		t.Fatal("wrk is not installed; .ci/run installs it")
	}
	want := map[string]int{"gnet (1 loop)": 6, "gnet (N loops)": 6, "nbio (1 poller)": 6, "nbio (N pollers)": 6,
		peerNames["netpoll/1"]: 4, peerNames["netpoll/N"]: 4, "fasthttp": 6 + wrkRows, peerNames["nbhttp"]: 6 + wrkRows}
	wrkTitle := wrkMeasure(100) + ": "
	wrkSeen := map[string]int{}
	for _, r := range rep.Rows {
		m, ok := strings.CutPrefix(r.Measure, wrkTitle)
		if !ok || r.Skipped {
			continue
		}
		wrkSeen[r.Model]++
		if !(r.Value > 0) {
			t.Errorf("wrk row without a value: %+v", r)
		}
		if (m == "requests/s" || m == "server CPU per request") && !strings.Contains(r.Note, "wrk / built-in") {
			t.Errorf("wrk row without the built-in client's figure: %+v", r)
		}
	}
	for _, r := range rep.Rows {
		if r.Measure == "HTTP hello 100 conns: requests/s" && wrkSeen[r.Model] != wrkRows {
			t.Errorf("%s: %d wrk rows, want %d", r.Model, wrkSeen[r.Model], wrkRows)
		}
	}
	got := map[string]int{}
	for _, r := range rep.Rows {
		if want[r.Model] == 0 {
			continue
		}
		got[r.Model]++
		if !(r.Value > 0) || r.Ratio == 0 {
			t.Errorf("row without a value: %+v", r)
		}
		if (strings.HasPrefix(r.Model, "gnet") || strings.HasPrefix(r.Model, "nbio")) && r.Unit == "calls/req" && (r.Value < 1.9 || r.Value > 2.5) {
			t.Errorf("%s makes %.2f read+write calls per request: %+v", r.Model, r.Value, r)
		}
	}
	for m, n := range want {
		if got[m] != n {
			t.Errorf("%d rows of %s, want %d", got[m], m, n)
		}
	}
	if peersExe != "" {
		t.Errorf("peers binary %s left behind", peersExe)
	}
}

// TestPeersNeedFlag: a peer's task without -peers is an error, not a run of
// this binary.
func TestPeersNeedFlag(t *testing.T) {
	var res struct{}
	err := runChild(task{Kind: "echo", Mode: "gnet/1", Conns: 1, D: time.Millisecond}, 30*time.Second, &res)
	if err == nil || !strings.Contains(err.Error(), "without -peers") {
		t.Fatalf("error %v", err)
	}
}
