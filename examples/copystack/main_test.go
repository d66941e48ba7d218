package main

import (
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out, 2, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	want := `from routineid 0
from routineid 1
from routineid 0
from routineid 1
2 coroutines alive at once ran on 2 carriers; 2 idle now
1000 coroutines, at most 16 at once, ran on 16 carriers: 986 started on a reused carrier, 16 carriers idle
`
	if out.String() != want {
		t.Fatalf("got\n%swant\n%s", out.String(), want)
	}
}
