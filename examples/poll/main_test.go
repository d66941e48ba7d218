//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out, 3, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	fired := "listener fired: revents POLLOUT; closed port fired: revents POLLOUT|POLLERR|POLLHUP; task cnt 2 fire 2"
	want := `--------------------- main -------------------
listener fired: revents POLLOUT
closed port fired: revents POLLOUT|POLLERR|POLLHUP
task cnt 2 fire 2
--------------------- routine -------------------
routine i 0
routine i 1
routine i 2
routine 0: ` + fired + `
routine 1: ` + fired + `
routine 2: ` + fired + `
--------------------- timeout -------------------
poll on an empty pipe for 50ms: 0 ready, revents 0, waited at least 50ms: true
`
	if out.String() != want {
		t.Fatalf("got\n%swant\n%s", out.String(), want)
	}
}
