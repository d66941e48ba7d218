package stackless

import (
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// countFrame: for i := 0; i < n; i++ { t.Sleep(1ms); sum += child(i) }
type countFrame struct {
	Base
	n, i, sum int
	child     *doubleFrame
}

func (f *countFrame) Step(t *Task) Status {
	for {
		switch f.PC {
		case 0:
			f.i = 0
			f.PC = 1
		case 1:
			if f.i >= f.n {
				return Done
			}
			f.PC = 2
			fallthrough
		case 2:
			t.Sleep(time.Millisecond)
			if t.Blocked() {
				return Suspend
			}
			f.child = &doubleFrame{x: f.i}
			f.PC = 3
			return t.Call(f.child)
		case 3:
			f.sum += f.child.r0
			f.i++
			f.PC = 1
		}
	}
}

type doubleFrame struct {
	Base
	x, r0 int
}

func (f *doubleFrame) Step(t *Task) Status {
	switch f.PC {
	case 0:
		f.PC = 1
		fallthrough
	case 1:
		t.Gosched()
		if t.Blocked() {
			return Suspend
		}
		if f.x < 0 {
			panic("negative")
		}
		f.r0 = 2 * f.x
		return Done
	}
	panic("bad pc")
}

func TestSmoke(t *testing.T) {
	l, _ := loop.New()
	defer l.Close()
	f := &countFrame{n: 5}
	task := Spawn(l, f)
	if err := Run(l, task); err != nil {
		t.Fatal(err)
	}
	if f.sum != 20 {
		t.Fatal(f.sum)
	}
	g := &countFrame{n: 1}
	g2 := &doubleFrame{x: -1}
	task2 := Spawn(l, g2)
	_ = g
	defer func() {
		if r := recover(); r != "negative" {
			t.Fatal(r)
		}
	}()
	Run(l, task2)
}
