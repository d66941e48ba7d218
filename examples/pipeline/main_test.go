package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Both models run the whole pipeline: every item arrives once, the shards
// count every item, and the mutex keeps one worker at a time in its
// critical section.
func TestPipeline(t *testing.T) {
	for _, model := range []string{"stackless", "stackful"} {
		var out bytes.Buffer
		if err := run(&out, config{model: model, items: 20, workers: 4, work: time.Millisecond, deadline: 30 * time.Second}); err != nil {
			t.Fatal(err)
		}
		want := model + `: 20 items through 4 workers
collected 20 results, sum of squares 2870
per shard: 0:5 1:5 2:5 3:5
most workers inside the critical section at once: 1
`
		if out.String() != want {
			t.Errorf("%s printed\n%s\nwant\n%s", model, out.String(), want)
		}
	}
}

// A deadline shorter than one item's work ends the collector first; the
// stages still blocked are ended when the loop (and the env) close.
func TestPipelineDeadline(t *testing.T) {
	for _, model := range []string{"stackless", "stackful"} {
		var out bytes.Buffer
		if err := run(&out, config{model: model, items: 50, workers: 2, work: 500 * time.Millisecond, deadline: 20 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "deadline 20ms passed after 0 of 50 results") {
			t.Errorf("%s printed\n%s", model, out.String())
		}
	}
}

func TestUnknownModel(t *testing.T) {
	if err := run(&bytes.Buffer{}, config{model: "fibers"}); err == nil {
		t.Fatal("unknown model accepted")
	}
}
