package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary serve as the worker child that bench
// starts (os.Executable).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		if err := worker(os.Args[2:], os.Stdout); err != nil {
			os.Stderr.WriteString("durablepg worker: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBenchSmoke runs a small bench of every engine against COGEN_PG_URL:
// every workflow's result checks (bench fails otherwise), and each engine
// has a row of every measure, recovery included, with a value above zero.
func TestBenchSmoke(t *testing.T) {
	url := os.Getenv("COGEN_PG_URL")
	if url == "" {
		t.Skip("COGEN_PG_URL is not set (source .ci/dbservers; dbservers_start)")
	}
	var out bytes.Buffer
	if err := bench([]string{"-db", url, "-n", "3", "-c", "8", "-w", "60", "-recover-w", "40", "-lease", "1s", "-json"}, &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]float64{} // model -> measure prefix -> value
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if r.Group != group {
			t.Errorf("row %+v: group %q, want %q", r, r.Group, group)
		}
		m, _, _ := strings.Cut(r.Measure, ",")
		if m, _, _ = strings.Cut(m, ":"); got[r.Model] == nil {
			got[r.Model] = map[string]float64{}
		}
		got[r.Model][m] = r.Value
	}
	measures := []string{"workflows per second", "worker CPU per step", "WAL bytes per step", "table bytes per step", "recovery"}
	for _, e := range engineNames {
		for _, m := range measures {
			if v, ok := got[engineModel[e]][m]; !ok || v <= 0 {
				t.Errorf("%s %s: %v (present %v), want a value above 0", e, m, v, ok)
			}
		}
	}
}

// TestSleepersFlat: workflows asleep far into the future are rows in
// PostgreSQL, not memory in the worker: with 6x as many asleep (each
// started, run to its Sleep of a year, committed and dropped by the
// runner), none is in the runner's memory and the worker's heap in use
// grows by less than 100 bytes per extra sleeper (a task in memory costs
// its frames and the runner's record, several hundred bytes).
func TestSleepersFlat(t *testing.T) {
	url := os.Getenv("COGEN_PG_URL")
	if url == "" {
		t.Skip("COGEN_PG_URL is not set (source .ci/dbservers; dbservers_start)")
	}
	const small, large = 500, 3000
	rows, err := measureSleepers(url, []int{small, large}, large)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.InMemory != 0 || r.Real != r.Count {
			t.Errorf("%d sleepers: %d in memory, %d run; want 0 in memory, all run", r.Count, r.InMemory, r.Real)
		}
	}
	growth := int64(rows[1].HeapMax) - int64(rows[0].HeapInuse)
	if limit := int64(100 * (large - small)); growth > limit {
		t.Errorf("heap in use grew by %d bytes from %d to %d sleepers (%d to %d), want at most %d", growth, small, large,
			rows[0].HeapInuse, rows[1].HeapMax, limit)
	}
	t.Logf("heap in use: %d sleepers %d B, %d sleepers %d-%d B", small, rows[0].HeapInuse, large, rows[1].HeapInuse, rows[1].HeapMax)
}
