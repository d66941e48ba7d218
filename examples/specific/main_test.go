package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out, 10, 3, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for range 3 {
		for id := range 10 {
			fmt.Fprintf(&want, "routine %d: specific data idx %d\n", id, id)
		}
	}
	want.WriteString("main: specific data idx -1\n")
	if out.String() != want.String() {
		t.Fatalf("got\n%swant\n%s", out.String(), want.String())
	}
}
