//go:build unix

package main

import (
	"slices"
	"testing"
)

// TestWrkBuiltin: the wrk rows take the built-in rows' names and values
// of the same measure, in model order, and none when the counts differ
// (a model missing from the built-in rows must not shift the others).
func TestWrkBuiltin(t *testing.T) {
	const m = "HTTP hello 100 conns: requests/s"
	rows := []Row{
		{Group: "http", Measure: m, Model: "net/http", Value: 10},
		{Group: "http", Measure: "other", Model: "x", Value: 99},
		{Group: "echo", Measure: m, Model: "y", Value: 98},
		{Group: "http", Measure: m, Model: "fasthttp", Value: 20},
	}
	if got := builtinNames(rows, "http", m, []string{"net/http", "fasthttp"}); !slices.Equal(got, []string{"net/http", "fasthttp"}) {
		t.Errorf("names %q", got)
	}
	if got := builtinValues(rows, "http", m, 2); !slices.Equal(got, []float64{10, 20}) {
		t.Errorf("values %v", got)
	}
	if got := builtinValues(rows, "http", m, 3); got != nil {
		t.Errorf("values for 3 models: %v", got)
	}
	if got := builtinNames(rows, "http", m, []string{"net/http", "fasthttp", "nbhttp"}); !slices.Equal(got, []string{"net/http", "fasthttp", peerNames["nbhttp"]}) {
		t.Errorf("names for 3 models %q", got)
	}
}
