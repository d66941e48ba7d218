// Package goswitches ports $GOROOT/test/typeswitch.go (a type switch over
// every kind of type, with the clause variable) and its boolean switches,
// and switch.go's shapes (tags and cases of every comparable kind,
// fallthrough, interface and nil cases), with the switched value, a case
// expression or a clause body suspending. Where the originals exit on a
// wrong branch, the port records the branch taken.
package goswitches

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

const (
	Bool = iota
	Int
	Float
	String
	Struct
	Chan
	Array
	Map
	Func
	Last
)

type S struct {
	a int
}

var s S = S{1234}

var c = make(chan int)

var a = []int{0, 1, 2, 3}

var m = make(map[string]int)

func f(i int) interface{} {
	switch i {
	case Bool:
		return true
	case Int:
		return 7
	case Float:
		return 7.4
	case String:
		return "hello"
	case Struct:
		return s
	case Chan:
		return c
	case Array:
		return a
	case Map:
		return m
	case Func:
		return f
	}
	panic("bad type number")
}

// value returns f(i) after a suspension.
//
//co:stackless
func value(co *stackful.Co, i int) interface{} {
	co.Gosched()
	return f(i)
}

// num returns v after a suspension.
//
//co:stackless
func num(co *stackful.Co, v int) int {
	co.Gosched()
	return v
}

// truth returns v after a suspension.
//
//co:stackless
func truth(co *stackful.Co, v bool) bool {
	co.Gosched()
	return v
}

// Run runs every case.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	typeSwitch(co, t)
	boolSwitches(co, t)
	valueSwitches(co, t)
}

//co:stackless
func typeSwitch(co *stackful.Co, t *trace.T) {
	for i := Bool; i < Last; i++ {
		switch x := value(co, i).(type) {
		case bool:
			t.Printf("bool %v", x == true && i == Bool)
		case int:
			co.Gosched()
			t.Printf("int %v", x == 7 && i == Int)
		case float64:
			t.Printf("float64 %v", x == 7.4 && i == Float)
		case string:
			t.Printf("string %v", x == "hello" && i == String)
		case S:
			co.Gosched()
			t.Printf("struct %v", x.a == 1234 && i == Struct)
		case chan int:
			t.Printf("chan %v", x == c && i == Chan)
		case []int:
			t.Printf("array %v", x[num(co, 3)] == 3 && i == Array)
		case map[string]int:
			t.Printf("map %v", x != nil && i == Map)
		case func(i int) interface{}:
			t.Printf("fun %v", x != nil && i == Func)
		default:
			t.Printf("unknown")
		}
	}
}

// boolSwitches: boolean switches, which have had bugs in the past (the
// comment of typeswitch.go), with a suspending case.
//
//co:stackless
func boolSwitches(co *stackful.Co, t *trace.T) {
	switch {
	case truth(co, true):
		t.Printf("switch 2 bool")
	default:
		t.Printf("switch 2 unknown")
	}

	switch true {
	case truth(co, true):
		t.Printf("switch 3 bool")
	default:
		t.Printf("switch 3 unknown")
	}

	switch false {
	case truth(co, false):
		t.Printf("switch 4 bool")
	default:
		t.Printf("switch 4 unknown")
	}

	// A case of && and || against a bool tag.
	p, q := true, false
	switch truth(co, false) {
	case p && q:
		t.Printf("switch 5 p && q (right)")
	case p || q:
		t.Printf("switch 5 p || q (wrong)")
	}
}

// valueSwitches: switch.go's shapes, with suspensions.
//
//co:stackless
func valueSwitches(co *stackful.Co, t *trace.T) {
	i5, i7 := 5, 7
	hello := "hello"

	switch num(co, 5) {
	case i5:
		t.Printf("i5")
	case i7:
		t.Printf("i7 (wrong)")
	}

	switch x := num(co, 7); x {
	case i5, num(co, 6):
		t.Printf("i5 (wrong)")
	case i7:
		co.Gosched()
		t.Printf("i7")
		fallthrough
	case 8:
		t.Printf("fell into 8")
	default:
		t.Printf("default (wrong)")
	}

	switch hello {
	case "world":
		t.Printf("world (wrong)")
	case "hel" + "lo":
		co.Gosched()
		t.Printf("hello")
	}

	// Interface tags compared with values of other types.
	var e interface{} = num(co, 5)
	switch e {
	case "5":
		t.Printf("string 5 (wrong)")
	case 5.0:
		t.Printf("float 5 (wrong)")
	case num(co, 5):
		t.Printf("int 5")
	}

	// nil cases of pointers, maps, slices, funcs and interfaces.
	var p *int
	var mp map[int]int
	var sl []int
	var fn func()
	var ni interface{}
	switch {
	case p != nil, mp != nil, sl != nil, fn != nil, ni != nil:
		t.Printf("non-nil (wrong)")
	case truth(co, true):
		t.Printf("all nil")
	}
	switch ni {
	case nil:
		co.Gosched()
		t.Printf("interface nil")
	}

	// Arrays and structs as tags.
	switch ar := [3]int{1, 2, num(co, 3)}; ar {
	case [3]int{1, 2, 3}:
		t.Printf("array")
	}
	switch st := (S{num(co, 1234)}); st {
	case s:
		t.Printf("struct")
	}

	// Switches in a loop with break and continue.
	n := 0
loop:
	for i := 0; i < 6; i++ {
		switch num(co, i) % 3 {
		case 0:
			continue
		case 1:
			n += i
			if i > 3 {
				break loop
			}
		default:
			break
		}
		n++
	}
	t.Printf("loop n=%d", n)
}
