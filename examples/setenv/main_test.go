package main

import (
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	t.Setenv("CGINAME", "")
	var out strings.Builder
	if err := run(&out, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	want := `routineid 0 begin: CGINAME none
routineid 1 begin: CGINAME none
routineid 2 begin: CGINAME none
routineid 0 set env CGINAME cgi_routine_0
routineid 1 set env CGINAME cgi_routine_1
routineid 2 set env CGINAME cgi_routine_2
routineid 0 get env CGINAME cgi_routine_0
routineid 1 get env CGINAME cgi_routine_1
routineid 2 get env CGINAME cgi_routine_2
main: CGINAME none
`
	if out.String() != want {
		t.Fatalf("got\n%swant\n%s", out.String(), want)
	}
}
