//go:build unix

package main

import "testing"

// TestDurablePGFamilies: bench/durablepg's model names fall in the right
// families, so that DBOS's rows are the base (the Go way) and the
// runner's the stackless family.
func TestDurablePGFamilies(t *testing.T) {
	for model, want := range map[string]string{
		"stackless durable runner (pgstore)": famStackless,
		"DBOS Transact v1.8.0":               famGo,
	} {
		if got := family(model); got != want {
			t.Errorf("family(%q) = %s, want %s", model, got, want)
		}
	}
}
