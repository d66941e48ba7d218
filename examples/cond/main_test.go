package main

import (
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out, 4, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	want := `produce task 0
consume task 0
produce task 1
consume task 1
produce task 2
consume task 2
produce task 3
consume task 3
`
	if out.String() != want {
		t.Fatalf("got\n%swant\n%s", out.String(), want)
	}
}
