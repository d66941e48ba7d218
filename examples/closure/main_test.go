package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out, 2*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := range 10 {
		fmt.Fprintf(&want, "ref.total 100 i %d\n", i)
	}
	want.WriteString("i: 0\ni: 1\ni 0 j 0\ni 1 j 0\ni 0 j 1\ni 1 j 1\nv2 0 1 2 3 4 5 6 7 8 9\n")
	if out.String() != want.String() {
		t.Fatalf("got\n%swant\n%s", out.String(), want.String())
	}
}
