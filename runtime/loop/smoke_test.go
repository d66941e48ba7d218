package loop

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

type fnRunner func()

func (f fnRunner) Run() { f() }

func TestSmoke(t *testing.T) {
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[1])
	f, err := l.Register(p[0])
	if err != nil {
		t.Fatal(err)
	}
	var w, s Waiter
	got := ""
	w.Init(l, fnRunner(func() { got += "read:" + w.Reason().String() + ";" }))
	s.Init(l, fnRunner(func() { got += "sleep;"; unix.Write(p[1], []byte("x")) }))
	f.WaitRead(&w, -1)
	s.Sleep(20 * time.Millisecond)
	start := time.Now()
	l.Run(func() bool { return w.Reason() != NotWoken })
	if got != "sleep;read:ready;" {
		t.Fatalf("got %q", got)
	}
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Fatalf("early: %v", el)
	}
	t.Log(l.Stats())
}
