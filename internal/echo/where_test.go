package echo

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

// TestWhere: a generated frame suspended in Read says so, at the source
// line of the Read (echo.go:18), and the loop's dump lists the task there.
func TestWhere(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	task := stackless.Spawn(l, NewEchoFrame(p[0]))
	if w := task.Where(); len(w) != 1 || !strings.HasSuffix(w[0], "internal/echo/echo.go:15") {
		t.Errorf("before its first step: Where() = %q, want the function's line", w)
	}
	for range 3 {
		if err := l.RunOnce(); err != nil {
			t.Fatal(err)
		}
	}
	want := "github.com/cogen-go/cogen/internal/echo/echo.go:18"
	if w := task.Where(); len(w) != 1 || w[0] != want {
		t.Fatalf("suspended in Read: Where() = %q, want [%s]", w, want)
	}
	var dump bytes.Buffer
	l.Dump(&dump)
	if !strings.Contains(dump.String(), "stackless task at "+want+": reading fd") {
		t.Errorf("loop dump does not show the task in Read:\n%s", dump.String())
	}
	unix.Close(p[1])
	if err := stackless.Run(l, task); err != nil {
		t.Fatal(err)
	}
	if w := task.Where(); w != nil {
		t.Errorf("finished task: Where() = %q", w)
	}
}
