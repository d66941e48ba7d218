// TestLineMatrix writes this file from the templates in
// gen/linematrix_test.go (go test ./gen -run TestLineMatrix -update): edit
// them, not this file.

// Package linematrix probes the line of every statement and expression
// position of //co:stackless functions: see gen/linematrix_test.go.
package linematrix

import (
	"path/filepath"
	"runtime"
	"strings"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

var (
	xs          = []int{1, 2, 3}
	k, zero     = 10, 0
	iface   any = "s"
	nilp    *int
)

type pair struct{ a, b int }

type counter struct{ n int }

func (c *counter) add(v int) *counter {
	c.n += v
	return c
}

// at records the line it is called from and returns v.
func at(t *trace.T, v int) int {
	_, file, line, _ := runtime.Caller(1)
	t.Printf("at %s:%d", filepath.Base(file), line)
	return v
}

// caught recovers a panic and records where it was raised: the first
// frame outside the runtime below the outermost runtime.gopanic (the
// stackless model runs deferred calls above the panicking Step, on its
// stack), and whether that frame is fn's (fn itself in the stackful
// model, fn's Step method in the stackless one, or a function literal
// in them, which has a frame type of its own if it suspends).
func caught(t *trace.T, fn string) {
	r := recover()
	if r == nil {
		return
	}
	pcs := make([]uintptr, 128)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	var below []runtime.Frame
	for {
		f, more := frames.Next()
		if f.Function == "runtime.gopanic" {
			below = below[:0]
		} else {
			below = append(below, f)
		}
		if !more {
			break
		}
	}
	for _, f := range below {
		if strings.HasPrefix(f.Function, "runtime.") {
			continue
		}
		name := f.Function[strings.LastIndex(f.Function, "/")+1:]
		own := false
		for _, fr := range []string{"linematrix." + fn, "linematrix.(*" + fn + "Frame).Step"} {
			own = own || name == fr || strings.HasPrefix(name, fr+".")
		}
		// The frame of a suspending function literal of fn.
		own = own || strings.HasPrefix(name, "linematrix.(*"+fn+"Func")
		t.Printf("panic %v at %s:%d (own frame %v)", r, filepath.Base(f.File), f.Line, own)
		return
	}
	t.Printf("panic %v: no frame", r)
}

// step suspends and returns v.
//
//co:stackless
func step(co *stackful.Co, v int) int {
	co.Gosched()
	return v
}

// l1: stmt, call probes.
//
//co:stackless
func l1(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l1")
	co.Gosched()
	t.Printf("v %d", at(t, 1))
	x := at(t, 2)
	x += at(t, 3)
	t.Printf("x %d", x)
	return
}

// l2: stmt, a panic in hole 0.
//
//co:stackless
func l2(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l2")
	co.Gosched()
	t.Printf("v %d", xs[k+1])
	x := at(t, 2)
	x += at(t, 3)
	t.Printf("x %d", x)
	return
}

// l3: stmt, a panic in hole 1.
//
//co:stackless
func l3(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l3")
	co.Gosched()
	t.Printf("v %d", at(t, 1))
	x := 2 / zero
	x += at(t, 3)
	t.Printf("x %d", x)
	return
}

// l4: stmt, a panic in hole 2.
//
//co:stackless
func l4(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l4")
	co.Gosched()
	t.Printf("v %d", at(t, 1))
	x := at(t, 2)
	x += iface.(int) + 3
	t.Printf("x %d", x)
	return
}

// l5: ifLowered, call probes.
//
//co:stackless
func l5(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l5")
	co.Gosched()
	if at(t, 0) > 0 {
		co.Gosched()
	} else if at(t, 2) > 1 {
		co.Gosched()
		t.Printf("else if %d", at(t, 3))
	}
	t.Printf("after %d", at(t, 4))
	return
}

// l6: ifLowered, a panic in hole 0.
//
//co:stackless
func l6(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l6")
	co.Gosched()
	if 0/zero > 0 {
		co.Gosched()
	} else if at(t, 2) > 1 {
		co.Gosched()
		t.Printf("else if %d", at(t, 3))
	}
	t.Printf("after %d", at(t, 4))
	return
}

// l7: ifLowered, a panic in hole 1.
//
//co:stackless
func l7(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l7")
	co.Gosched()
	if at(t, 0) > 0 {
		co.Gosched()
	} else if iface.(int)+2 > 1 {
		co.Gosched()
		t.Printf("else if %d", at(t, 3))
	}
	t.Printf("after %d", at(t, 4))
	return
}

// l8: ifLowered, a panic in hole 2.
//
//co:stackless
func l8(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l8")
	co.Gosched()
	if at(t, 0) > 0 {
		co.Gosched()
	} else if at(t, 2) > 1 {
		co.Gosched()
		t.Printf("else if %d", *nilp+3)
	}
	t.Printf("after %d", at(t, 4))
	return
}

// l9: ifLowered, a panic in hole 3.
//
//co:stackless
func l9(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l9")
	co.Gosched()
	if at(t, 0) > 0 {
		co.Gosched()
	} else if at(t, 2) > 1 {
		co.Gosched()
		t.Printf("else if %d", at(t, 3))
	}
	t.Printf("after %d", xs[k+4])
	return
}

// l10: ifCopied, call probes.
//
//co:stackless
func l10(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l10")
	co.Gosched()
	if at(t, 0) > 0 {
		t.Printf("no")
	} else if at(t, 2) > 1 {
		t.Printf("yes %d", at(t, 3))
	}
	return
}

// l11: ifCopied, a panic in hole 0.
//
//co:stackless
func l11(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l11")
	co.Gosched()
	if iface.(int)+0 > 0 {
		t.Printf("no")
	} else if at(t, 2) > 1 {
		t.Printf("yes %d", at(t, 3))
	}
	return
}

// l12: ifCopied, a panic in hole 1.
//
//co:stackless
func l12(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l12")
	co.Gosched()
	if at(t, 0) > 0 {
		t.Printf("no")
	} else if *nilp+2 > 1 {
		t.Printf("yes %d", at(t, 3))
	}
	return
}

// l13: ifCopied, a panic in hole 2.
//
//co:stackless
func l13(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l13")
	co.Gosched()
	if at(t, 0) > 0 {
		t.Printf("no")
	} else if at(t, 2) > 1 {
		t.Printf("yes %d", xs[k+3])
	}
	return
}

// l14: ifSuspendingCond, call probes.
//
//co:stackless
func l14(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l14")
	co.Gosched()
	if step(co, 1) > at(t, 0) && at(t, 1) > 0 {
		t.Printf("then %d", at(t, 2))
	}
	return
}

// l15: ifSuspendingCond, a panic in hole 0.
//
//co:stackless
func l15(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l15")
	co.Gosched()
	if step(co, 1) > *nilp+0 && at(t, 1) > 0 {
		t.Printf("then %d", at(t, 2))
	}
	return
}

// l16: ifSuspendingCond, a panic in hole 1.
//
//co:stackless
func l16(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l16")
	co.Gosched()
	if step(co, 1) > at(t, 0) && xs[k+1] > 0 {
		t.Printf("then %d", at(t, 2))
	}
	return
}

// l17: ifSuspendingCond, a panic in hole 2.
//
//co:stackless
func l17(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l17")
	co.Gosched()
	if step(co, 1) > at(t, 0) && at(t, 1) > 0 {
		t.Printf("then %d", 2/zero)
	}
	return
}

// l18: forLowered, call probes.
//
//co:stackless
func l18(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l18")
	co.Gosched()
	for i := at(t, 0); i < at(t, 2); i += at(t, 1) {
		co.Gosched()
		t.Printf("i %d", i)
	}
	t.Printf("after %d", at(t, 5))
	return
}

// l19: forLowered, a panic in hole 0.
//
//co:stackless
func l19(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l19")
	co.Gosched()
	for i := xs[k+0]; i < at(t, 2); i += at(t, 1) {
		co.Gosched()
		t.Printf("i %d", i)
	}
	t.Printf("after %d", at(t, 5))
	return
}

// l20: forLowered, a panic in hole 1.
//
//co:stackless
func l20(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l20")
	co.Gosched()
	for i := at(t, 0); i < 2/zero; i += at(t, 1) {
		co.Gosched()
		t.Printf("i %d", i)
	}
	t.Printf("after %d", at(t, 5))
	return
}

// l21: forLowered, a panic in hole 2.
//
//co:stackless
func l21(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l21")
	co.Gosched()
	for i := at(t, 0); i < at(t, 2); i += iface.(int) + 1 {
		co.Gosched()
		t.Printf("i %d", i)
	}
	t.Printf("after %d", at(t, 5))
	return
}

// l22: forLowered, a panic in hole 3.
//
//co:stackless
func l22(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l22")
	co.Gosched()
	for i := at(t, 0); i < at(t, 2); i += at(t, 1) {
		co.Gosched()
		t.Printf("i %d", i)
	}
	t.Printf("after %d", *nilp+5)
	return
}

// l23: forCopied, call probes.
//
//co:stackless
func l23(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l23")
	co.Gosched()
	for i := at(t, 0); i < at(t, 2); i += at(t, 1) {
		t.Printf("i %d", i)
	}
	return
}

// l24: forCopied, a panic in hole 0.
//
//co:stackless
func l24(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l24")
	co.Gosched()
	for i := 0 / zero; i < at(t, 2); i += at(t, 1) {
		t.Printf("i %d", i)
	}
	return
}

// l25: forCopied, a panic in hole 1.
//
//co:stackless
func l25(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l25")
	co.Gosched()
	for i := at(t, 0); i < iface.(int)+2; i += at(t, 1) {
		t.Printf("i %d", i)
	}
	return
}

// l26: forCopied, a panic in hole 2.
//
//co:stackless
func l26(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l26")
	co.Gosched()
	for i := at(t, 0); i < at(t, 2); i += *nilp + 1 {
		t.Printf("i %d", i)
	}
	return
}

// l27: forSuspendingCond, call probes.
//
//co:stackless
func l27(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l27")
	co.Gosched()
	for i := 0; i < step(co, 2)+at(t, 0); i++ {
		t.Printf("i %d %d", i, at(t, 1))
	}
	return
}

// l28: forSuspendingCond, a panic in hole 0.
//
//co:stackless
func l28(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l28")
	co.Gosched()
	for i := 0; i < step(co, 2)+iface.(int)+0; i++ {
		t.Printf("i %d %d", i, at(t, 1))
	}
	return
}

// l29: forSuspendingCond, a panic in hole 1.
//
//co:stackless
func l29(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l29")
	co.Gosched()
	for i := 0; i < step(co, 2)+at(t, 0); i++ {
		t.Printf("i %d %d", i, *nilp+1)
	}
	return
}

// l30: switchLowered, call probes.
//
//co:stackless
func l30(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l30")
	co.Gosched()
	switch at(t, 2) {
	case at(t, 1):
		t.Printf("one")
	case at(t, 3),
		at(t, 2):
		co.Gosched()
		t.Printf("two")
	}
	return
}

// l31: switchLowered, a panic in hole 0.
//
//co:stackless
func l31(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l31")
	co.Gosched()
	switch *nilp + 2 {
	case at(t, 1):
		t.Printf("one")
	case at(t, 3),
		at(t, 2):
		co.Gosched()
		t.Printf("two")
	}
	return
}

// l32: switchLowered, a panic in hole 1.
//
//co:stackless
func l32(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l32")
	co.Gosched()
	switch at(t, 2) {
	case xs[k+1]:
		t.Printf("one")
	case at(t, 3),
		at(t, 2):
		co.Gosched()
		t.Printf("two")
	}
	return
}

// l33: switchLowered, a panic in hole 2.
//
//co:stackless
func l33(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l33")
	co.Gosched()
	switch at(t, 2) {
	case at(t, 1):
		t.Printf("one")
	case 3 / zero,
		at(t, 2):
		co.Gosched()
		t.Printf("two")
	}
	return
}

// l34: switchLowered, a panic in hole 3.
//
//co:stackless
func l34(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l34")
	co.Gosched()
	switch at(t, 2) {
	case at(t, 1):
		t.Printf("one")
	case at(t, 3),
		iface.(int) + 2:
		co.Gosched()
		t.Printf("two")
	}
	return
}

// l35: switchSuspendingCase, call probes.
//
//co:stackless
func l35(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l35")
	co.Gosched()
	switch at(t, 2) {
	case step(co, 1):
		t.Printf("one")
	case at(t, 2):
		t.Printf("two")
	}
	return
}

// l36: switchSuspendingCase, a panic in hole 0.
//
//co:stackless
func l36(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l36")
	co.Gosched()
	switch xs[k+2] {
	case step(co, 1):
		t.Printf("one")
	case at(t, 2):
		t.Printf("two")
	}
	return
}

// l37: switchSuspendingCase, a panic in hole 1.
//
//co:stackless
func l37(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l37")
	co.Gosched()
	switch at(t, 2) {
	case step(co, 1):
		t.Printf("one")
	case 2 / zero:
		t.Printf("two")
	}
	return
}

// l38: switchTagless, call probes.
//
//co:stackless
func l38(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l38")
	co.Gosched()
	switch {
	case at(t, 1) > 5:
		co.Gosched()
	case at(t, 2) > 1:
		t.Printf("two")
	}
	return
}

// l39: switchTagless, a panic in hole 0.
//
//co:stackless
func l39(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l39")
	co.Gosched()
	switch {
	case 1/zero > 5:
		co.Gosched()
	case at(t, 2) > 1:
		t.Printf("two")
	}
	return
}

// l40: switchTagless, a panic in hole 1.
//
//co:stackless
func l40(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l40")
	co.Gosched()
	switch {
	case at(t, 1) > 5:
		co.Gosched()
	case iface.(int)+2 > 1:
		t.Printf("two")
	}
	return
}

// l41: switchCopied, call probes.
//
//co:stackless
func l41(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l41")
	co.Gosched()
	switch x := at(t, 2); x {
	case at(t, 1):
		t.Printf("one")
	default:
		t.Printf("other %d", at(t, 3))
	}
	return
}

// l42: switchCopied, a panic in hole 0.
//
//co:stackless
func l42(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l42")
	co.Gosched()
	switch x := iface.(int) + 2; x {
	case at(t, 1):
		t.Printf("one")
	default:
		t.Printf("other %d", at(t, 3))
	}
	return
}

// l43: switchCopied, a panic in hole 1.
//
//co:stackless
func l43(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l43")
	co.Gosched()
	switch x := at(t, 2); x {
	case *nilp + 1:
		t.Printf("one")
	default:
		t.Printf("other %d", at(t, 3))
	}
	return
}

// l44: switchCopied, a panic in hole 2.
//
//co:stackless
func l44(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l44")
	co.Gosched()
	switch x := at(t, 2); x {
	case at(t, 1):
		t.Printf("one")
	default:
		t.Printf("other %d", xs[k+3])
	}
	return
}

// l45: typeSwitch, call probes.
//
//co:stackless
func l45(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l45")
	co.Gosched()
	switch v := any(at(t, 2)).(type) {
	case string:
		t.Printf("string")
	case int:
		co.Gosched()
		t.Printf("int %d", v+at(t, 1))
	}
	return
}

// l46: typeSwitch, a panic in hole 0.
//
//co:stackless
func l46(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l46")
	co.Gosched()
	switch v := any(*nilp + 2).(type) {
	case string:
		t.Printf("string")
	case int:
		co.Gosched()
		t.Printf("int %d", v+at(t, 1))
	}
	return
}

// l47: typeSwitch, a panic in hole 1.
//
//co:stackless
func l47(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l47")
	co.Gosched()
	switch v := any(at(t, 2)).(type) {
	case string:
		t.Printf("string")
	case int:
		co.Gosched()
		t.Printf("int %d", v+xs[k+1])
	}
	return
}

// l48: rangeSlice, call probes.
//
//co:stackless
func l48(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l48")
	co.Gosched()
	for _, v := range xs[:at(t, 2)] {
		co.Gosched()
		t.Printf("v %d", v)
	}
	return
}

// l49: rangeSlice, a panic in hole 0.
//
//co:stackless
func l49(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l49")
	co.Gosched()
	for _, v := range xs[:xs[k+2]] {
		co.Gosched()
		t.Printf("v %d", v)
	}
	return
}

// l50: rangeInt, call probes.
//
//co:stackless
func l50(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l50")
	co.Gosched()
	for i := range at(t, 2) {
		co.Gosched()
		t.Printf("i %d %d", i, at(t, 1))
	}
	return
}

// l51: rangeInt, a panic in hole 0.
//
//co:stackless
func l51(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l51")
	co.Gosched()
	for i := range 2 / zero {
		co.Gosched()
		t.Printf("i %d %d", i, at(t, 1))
	}
	return
}

// l52: rangeInt, a panic in hole 1.
//
//co:stackless
func l52(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l52")
	co.Gosched()
	for i := range at(t, 2) {
		co.Gosched()
		t.Printf("i %d %d", i, iface.(int)+1)
	}
	return
}

// l53: rangeMap, call probes.
//
//co:stackless
func l53(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l53")
	co.Gosched()
	for k, v := range map[int]int{at(t, 1): at(t, 2)} {
		co.Gosched()
		t.Printf("%d %d", k, v)
	}
	return
}

// l54: rangeMap, a panic in hole 0.
//
//co:stackless
func l54(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l54")
	co.Gosched()
	for k, v := range map[int]int{iface.(int) + 1: at(t, 2)} {
		co.Gosched()
		t.Printf("%d %d", k, v)
	}
	return
}

// l55: rangeMap, a panic in hole 1.
//
//co:stackless
func l55(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l55")
	co.Gosched()
	for k, v := range map[int]int{at(t, 1): *nilp + 2} {
		co.Gosched()
		t.Printf("%d %d", k, v)
	}
	return
}

// l56: rangeCopied, call probes.
//
//co:stackless
func l56(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l56")
	co.Gosched()
	for i, c := range "ab"[:at(t, 1)] {
		t.Printf("%d %c %d", i, c, at(t, 2))
	}
	return
}

// l57: rangeCopied, a panic in hole 0.
//
//co:stackless
func l57(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l57")
	co.Gosched()
	for i, c := range "ab"[:*nilp+1] {
		t.Printf("%d %c %d", i, c, at(t, 2))
	}
	return
}

// l58: rangeCopied, a panic in hole 1.
//
//co:stackless
func l58(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l58")
	co.Gosched()
	for i, c := range "ab"[:at(t, 1)] {
		t.Printf("%d %c %d", i, c, xs[k+2])
	}
	return
}

// l59: callArgs, call probes.
//
//co:stackless
func l59(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l59")
	co.Gosched()
	t.Printf("%d %d %d",
		at(t, 1),
		step(co, 2),
		at(t, 3))
	return
}

// l60: callArgs, a panic in hole 0.
//
//co:stackless
func l60(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l60")
	co.Gosched()
	t.Printf("%d %d %d",
		xs[k+1],
		step(co, 2),
		at(t, 3))
	return
}

// l61: callArgs, a panic in hole 1.
//
//co:stackless
func l61(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l61")
	co.Gosched()
	t.Printf("%d %d %d",
		at(t, 1),
		step(co, 2),
		3/zero)
	return
}

// l62: compositeElems, call probes.
//
//co:stackless
func l62(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l62")
	co.Gosched()
	ys := []int{
		at(t, 1),
		step(co, 2),
		at(t, 3),
	}
	p := pair{
		a: at(t, 4),
		b: step(co, 5) + at(t, 6),
	}
	m := map[int]int{
		at(t, 7): step(co, 8),
	}
	t.Printf("%v %v %v", ys, p, m)
	return
}

// l63: compositeElems, a panic in hole 0.
//
//co:stackless
func l63(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l63")
	co.Gosched()
	ys := []int{
		1 / zero,
		step(co, 2),
		at(t, 3),
	}
	p := pair{
		a: at(t, 4),
		b: step(co, 5) + at(t, 6),
	}
	m := map[int]int{
		at(t, 7): step(co, 8),
	}
	t.Printf("%v %v %v", ys, p, m)
	return
}

// l64: compositeElems, a panic in hole 1.
//
//co:stackless
func l64(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l64")
	co.Gosched()
	ys := []int{
		at(t, 1),
		step(co, 2),
		iface.(int) + 3,
	}
	p := pair{
		a: at(t, 4),
		b: step(co, 5) + at(t, 6),
	}
	m := map[int]int{
		at(t, 7): step(co, 8),
	}
	t.Printf("%v %v %v", ys, p, m)
	return
}

// l65: compositeElems, a panic in hole 2.
//
//co:stackless
func l65(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l65")
	co.Gosched()
	ys := []int{
		at(t, 1),
		step(co, 2),
		at(t, 3),
	}
	p := pair{
		a: *nilp + 4,
		b: step(co, 5) + at(t, 6),
	}
	m := map[int]int{
		at(t, 7): step(co, 8),
	}
	t.Printf("%v %v %v", ys, p, m)
	return
}

// l66: compositeElems, a panic in hole 3.
//
//co:stackless
func l66(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l66")
	co.Gosched()
	ys := []int{
		at(t, 1),
		step(co, 2),
		at(t, 3),
	}
	p := pair{
		a: at(t, 4),
		b: step(co, 5) + xs[k+6],
	}
	m := map[int]int{
		at(t, 7): step(co, 8),
	}
	t.Printf("%v %v %v", ys, p, m)
	return
}

// l67: compositeElems, a panic in hole 4.
//
//co:stackless
func l67(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l67")
	co.Gosched()
	ys := []int{
		at(t, 1),
		step(co, 2),
		at(t, 3),
	}
	p := pair{
		a: at(t, 4),
		b: step(co, 5) + at(t, 6),
	}
	m := map[int]int{
		7 / zero: step(co, 8),
	}
	t.Printf("%v %v %v", ys, p, m)
	return
}

// l68: binaryMultiline, call probes.
//
//co:stackless
func l68(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l68")
	co.Gosched()
	x := at(t, 1) +
		step(co, 2)*
			at(t, 3)
	t.Printf("%d", x)
	return
}

// l69: binaryMultiline, a panic in hole 0.
//
//co:stackless
func l69(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l69")
	co.Gosched()
	x := iface.(int) + 1 +
		step(co, 2)*
			at(t, 3)
	t.Printf("%d", x)
	return
}

// l70: binaryMultiline, a panic in hole 1.
//
//co:stackless
func l70(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l70")
	co.Gosched()
	x := at(t, 1) +
		step(co, 2)*
			*nilp + 3
	t.Printf("%d", x)
	return
}

// l71: methodChain, call probes.
//
//co:stackless
func l71(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l71")
	co.Gosched()
	var c counter
	c.
		add(at(t, 1)).
		add(step(co, 2)).
		add(at(t, 3))
	t.Printf("%d", c.n)
	return
}

// l72: methodChain, a panic in hole 0.
//
//co:stackless
func l72(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l72")
	co.Gosched()
	var c counter
	c.
		add(*nilp + 1).
		add(step(co, 2)).
		add(at(t, 3))
	t.Printf("%d", c.n)
	return
}

// l73: methodChain, a panic in hole 1.
//
//co:stackless
func l73(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l73")
	co.Gosched()
	var c counter
	c.
		add(at(t, 1)).
		add(step(co, 2)).
		add(xs[k+3])
	t.Printf("%d", c.n)
	return
}

// l74: returnValues, call probes.
//
//co:stackless
func l74(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l74")
	co.Gosched()
	return at(t, 1) +
		step(co, 2) +
		at(t, 3)
}

// l75: returnValues, a panic in hole 0.
//
//co:stackless
func l75(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l75")
	co.Gosched()
	return xs[k+1] +
		step(co, 2) +
		at(t, 3)
}

// l76: returnValues, a panic in hole 1.
//
//co:stackless
func l76(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l76")
	co.Gosched()
	return at(t, 1) +
		step(co, 2) +
		3/zero
}

// l77: returnCopied, call probes.
//
//co:stackless
func l77(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l77")
	co.Gosched()
	if at(t, 1) > 0 {
		return at(t, 2)
	}
	return at(t, 3)
}

// l78: returnCopied, a panic in hole 0.
//
//co:stackless
func l78(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l78")
	co.Gosched()
	if 1/zero > 0 {
		return at(t, 2)
	}
	return at(t, 3)
}

// l79: returnCopied, a panic in hole 1.
//
//co:stackless
func l79(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l79")
	co.Gosched()
	if at(t, 1) > 0 {
		return iface.(int) + 2
	}
	return at(t, 3)
}

// l80: returnCopied, a panic in hole 2.
//
//co:stackless
func l80(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l80")
	co.Gosched()
	if at(t, 1) > 0 {
		return at(t, 2)
	}
	return *nilp + 3
}

// l81: deferPaths, call probes.
//
//co:stackless
func l81(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l81")
	defer t.Printf("deferred %d", at(t, 1))
	defer func() {
		t.Printf("closure %d", at(t, 2))
	}()
	co.Gosched()
	defer func(v int) {
		t.Printf("closure %d %d", v, at(t, 3))
	}(at(t, 4))
	co.Gosched()
	return
}

// l82: deferPaths, a panic in hole 0.
//
//co:stackless
func l82(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l82")
	defer t.Printf("deferred %d", iface.(int)+1)
	defer func() {
		t.Printf("closure %d", at(t, 2))
	}()
	co.Gosched()
	defer func(v int) {
		t.Printf("closure %d %d", v, at(t, 3))
	}(at(t, 4))
	co.Gosched()
	return
}

// l83: deferPaths, a panic in hole 1.
//
//co:stackless
func l83(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l83")
	defer t.Printf("deferred %d", at(t, 1))
	defer func() {
		t.Printf("closure %d", *nilp+2)
	}()
	co.Gosched()
	defer func(v int) {
		t.Printf("closure %d %d", v, at(t, 3))
	}(at(t, 4))
	co.Gosched()
	return
}

// l84: deferPaths, a panic in hole 2.
//
//co:stackless
func l84(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l84")
	defer t.Printf("deferred %d", at(t, 1))
	defer func() {
		t.Printf("closure %d", at(t, 2))
	}()
	co.Gosched()
	defer func(v int) {
		t.Printf("closure %d %d", v, xs[k+3])
	}(at(t, 4))
	co.Gosched()
	return
}

// l85: deferPaths, a panic in hole 3.
//
//co:stackless
func l85(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l85")
	defer t.Printf("deferred %d", at(t, 1))
	defer func() {
		t.Printf("closure %d", at(t, 2))
	}()
	co.Gosched()
	defer func(v int) {
		t.Printf("closure %d %d", v, at(t, 3))
	}(4 / zero)
	co.Gosched()
	return
}

// l86: closures, call probes.
//
//co:stackless
func l86(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l86")
	co.Gosched()
	fn := func(v int) int {
		return v + at(t, 1)
	}
	t.Printf("%d", fn(step(co, 2)))
	g := func() {
		co.Gosched()
		t.Printf("%d", at(t, 3))
	}
	g()
	return
}

// l87: closures, a panic in hole 0.
//
//co:stackless
func l87(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l87")
	co.Gosched()
	fn := func(v int) int {
		return v + *nilp + 1
	}
	t.Printf("%d", fn(step(co, 2)))
	g := func() {
		co.Gosched()
		t.Printf("%d", at(t, 3))
	}
	g()
	return
}

// l88: closures, a panic in hole 1.
//
//co:stackless
func l88(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l88")
	co.Gosched()
	fn := func(v int) int {
		return v + at(t, 1)
	}
	t.Printf("%d", fn(step(co, 2)))
	g := func() {
		co.Gosched()
		t.Printf("%d", xs[k+3])
	}
	g()
	return
}

// l89: assignTargets, call probes.
//
//co:stackless
func l89(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l89")
	co.Gosched()
	ys := make([]int, 4)
	ys[at(t, 1)] = step(co, 2)
	ys[at(t, 2)]++
	ch := make(chan int, 1)
	ch <- at(t, 3)              //co:blocking
	t.Printf("%v %d", ys, <-ch) //co:blocking
	return
}

// l90: assignTargets, a panic in hole 0.
//
//co:stackless
func l90(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l90")
	co.Gosched()
	ys := make([]int, 4)
	ys[xs[k+1]] = step(co, 2)
	ys[at(t, 2)]++
	ch := make(chan int, 1)
	ch <- at(t, 3)              //co:blocking
	t.Printf("%v %d", ys, <-ch) //co:blocking
	return
}

// l91: assignTargets, a panic in hole 1.
//
//co:stackless
func l91(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l91")
	co.Gosched()
	ys := make([]int, 4)
	ys[at(t, 1)] = step(co, 2)
	ys[2/zero]++
	ch := make(chan int, 1)
	ch <- at(t, 3)              //co:blocking
	t.Printf("%v %d", ys, <-ch) //co:blocking
	return
}

// l92: assignTargets, a panic in hole 2.
//
//co:stackless
func l92(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l92")
	co.Gosched()
	ys := make([]int, 4)
	ys[at(t, 1)] = step(co, 2)
	ys[at(t, 2)]++
	ch := make(chan int, 1)
	ch <- iface.(int) + 3       //co:blocking
	t.Printf("%v %d", ys, <-ch) //co:blocking
	return
}

// l93: labeled, call probes.
//
//co:stackless
func l93(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l93")
	co.Gosched()
outer:
	for i := 0; i < at(t, 2); i++ {
		for j := 0; j < at(t, 2); j++ {
			co.Gosched()
			if j == at(t, 1) {
				continue outer
			}
			t.Printf("%d %d", i, j)
		}
	}
	return
}

// l94: labeled, a panic in hole 0.
//
//co:stackless
func l94(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l94")
	co.Gosched()
outer:
	for i := 0; i < 2/zero; i++ {
		for j := 0; j < at(t, 2); j++ {
			co.Gosched()
			if j == at(t, 1) {
				continue outer
			}
			t.Printf("%d %d", i, j)
		}
	}
	return
}

// l95: labeled, a panic in hole 1.
//
//co:stackless
func l95(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l95")
	co.Gosched()
outer:
	for i := 0; i < at(t, 2); i++ {
		for j := 0; j < iface.(int)+2; j++ {
			co.Gosched()
			if j == at(t, 1) {
				continue outer
			}
			t.Printf("%d %d", i, j)
		}
	}
	return
}

// l96: labeled, a panic in hole 2.
//
//co:stackless
func l96(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l96")
	co.Gosched()
outer:
	for i := 0; i < at(t, 2); i++ {
		for j := 0; j < at(t, 2); j++ {
			co.Gosched()
			if j == *nilp+1 {
				continue outer
			}
			t.Printf("%d %d", i, j)
		}
	}
	return
}

// l97: varDecl, call probes.
//
//co:stackless
func l97(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l97")
	co.Gosched()
	var a, b = at(t, 1),
		step(co, 2)
	t.Printf("%d %d", a, b)
	return
}

// l98: varDecl, a panic in hole 0.
//
//co:stackless
func l98(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l98")
	co.Gosched()
	var a, b = iface.(int) + 1,
		step(co, 2)
	t.Printf("%d %d", a, b)
	return
}

// l99: shortCircuit, call probes.
//
//co:stackless
func l99(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l99")
	co.Gosched()
	ok := at(t, 1) > 0 &&
		step(co, 1) > at(t, 0) ||
		at(t, 2) > 9
	t.Printf("%v", ok)
	return
}

// l100: shortCircuit, a panic in hole 0.
//
//co:stackless
func l100(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l100")
	co.Gosched()
	ok := *nilp+1 > 0 &&
		step(co, 1) > at(t, 0) ||
		at(t, 2) > 9
	t.Printf("%v", ok)
	return
}

// l101: shortCircuit, a panic in hole 1.
//
//co:stackless
func l101(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l101")
	co.Gosched()
	ok := at(t, 1) > 0 &&
		step(co, 1) > xs[k+0] ||
		at(t, 2) > 9
	t.Printf("%v", ok)
	return
}

// l102: shortCircuit, a panic in hole 2.
//
//co:stackless
func l102(co *stackful.Co, t *trace.T) (r int) {
	defer caught(t, "l102")
	co.Gosched()
	ok := at(t, 1) > 0 &&
		step(co, 1) > at(t, 0) ||
		2/zero > 9
	t.Printf("%v", ok)
	return
}

// Run runs every probe function.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	t.Printf("l1 returns %d", l1(co, t))
	t.Printf("l2 returns %d", l2(co, t))
	t.Printf("l3 returns %d", l3(co, t))
	t.Printf("l4 returns %d", l4(co, t))
	t.Printf("l5 returns %d", l5(co, t))
	t.Printf("l6 returns %d", l6(co, t))
	t.Printf("l7 returns %d", l7(co, t))
	t.Printf("l8 returns %d", l8(co, t))
	t.Printf("l9 returns %d", l9(co, t))
	t.Printf("l10 returns %d", l10(co, t))
	t.Printf("l11 returns %d", l11(co, t))
	t.Printf("l12 returns %d", l12(co, t))
	t.Printf("l13 returns %d", l13(co, t))
	t.Printf("l14 returns %d", l14(co, t))
	t.Printf("l15 returns %d", l15(co, t))
	t.Printf("l16 returns %d", l16(co, t))
	t.Printf("l17 returns %d", l17(co, t))
	t.Printf("l18 returns %d", l18(co, t))
	t.Printf("l19 returns %d", l19(co, t))
	t.Printf("l20 returns %d", l20(co, t))
	t.Printf("l21 returns %d", l21(co, t))
	t.Printf("l22 returns %d", l22(co, t))
	t.Printf("l23 returns %d", l23(co, t))
	t.Printf("l24 returns %d", l24(co, t))
	t.Printf("l25 returns %d", l25(co, t))
	t.Printf("l26 returns %d", l26(co, t))
	t.Printf("l27 returns %d", l27(co, t))
	t.Printf("l28 returns %d", l28(co, t))
	t.Printf("l29 returns %d", l29(co, t))
	t.Printf("l30 returns %d", l30(co, t))
	t.Printf("l31 returns %d", l31(co, t))
	t.Printf("l32 returns %d", l32(co, t))
	t.Printf("l33 returns %d", l33(co, t))
	t.Printf("l34 returns %d", l34(co, t))
	t.Printf("l35 returns %d", l35(co, t))
	t.Printf("l36 returns %d", l36(co, t))
	t.Printf("l37 returns %d", l37(co, t))
	t.Printf("l38 returns %d", l38(co, t))
	t.Printf("l39 returns %d", l39(co, t))
	t.Printf("l40 returns %d", l40(co, t))
	t.Printf("l41 returns %d", l41(co, t))
	t.Printf("l42 returns %d", l42(co, t))
	t.Printf("l43 returns %d", l43(co, t))
	t.Printf("l44 returns %d", l44(co, t))
	t.Printf("l45 returns %d", l45(co, t))
	t.Printf("l46 returns %d", l46(co, t))
	t.Printf("l47 returns %d", l47(co, t))
	t.Printf("l48 returns %d", l48(co, t))
	t.Printf("l49 returns %d", l49(co, t))
	t.Printf("l50 returns %d", l50(co, t))
	t.Printf("l51 returns %d", l51(co, t))
	t.Printf("l52 returns %d", l52(co, t))
	t.Printf("l53 returns %d", l53(co, t))
	t.Printf("l54 returns %d", l54(co, t))
	t.Printf("l55 returns %d", l55(co, t))
	t.Printf("l56 returns %d", l56(co, t))
	t.Printf("l57 returns %d", l57(co, t))
	t.Printf("l58 returns %d", l58(co, t))
	t.Printf("l59 returns %d", l59(co, t))
	t.Printf("l60 returns %d", l60(co, t))
	t.Printf("l61 returns %d", l61(co, t))
	t.Printf("l62 returns %d", l62(co, t))
	t.Printf("l63 returns %d", l63(co, t))
	t.Printf("l64 returns %d", l64(co, t))
	t.Printf("l65 returns %d", l65(co, t))
	t.Printf("l66 returns %d", l66(co, t))
	t.Printf("l67 returns %d", l67(co, t))
	t.Printf("l68 returns %d", l68(co, t))
	t.Printf("l69 returns %d", l69(co, t))
	t.Printf("l70 returns %d", l70(co, t))
	t.Printf("l71 returns %d", l71(co, t))
	t.Printf("l72 returns %d", l72(co, t))
	t.Printf("l73 returns %d", l73(co, t))
	t.Printf("l74 returns %d", l74(co, t))
	t.Printf("l75 returns %d", l75(co, t))
	t.Printf("l76 returns %d", l76(co, t))
	t.Printf("l77 returns %d", l77(co, t))
	t.Printf("l78 returns %d", l78(co, t))
	t.Printf("l79 returns %d", l79(co, t))
	t.Printf("l80 returns %d", l80(co, t))
	t.Printf("l81 returns %d", l81(co, t))
	t.Printf("l82 returns %d", l82(co, t))
	t.Printf("l83 returns %d", l83(co, t))
	t.Printf("l84 returns %d", l84(co, t))
	t.Printf("l85 returns %d", l85(co, t))
	t.Printf("l86 returns %d", l86(co, t))
	t.Printf("l87 returns %d", l87(co, t))
	t.Printf("l88 returns %d", l88(co, t))
	t.Printf("l89 returns %d", l89(co, t))
	t.Printf("l90 returns %d", l90(co, t))
	t.Printf("l91 returns %d", l91(co, t))
	t.Printf("l92 returns %d", l92(co, t))
	t.Printf("l93 returns %d", l93(co, t))
	t.Printf("l94 returns %d", l94(co, t))
	t.Printf("l95 returns %d", l95(co, t))
	t.Printf("l96 returns %d", l96(co, t))
	t.Printf("l97 returns %d", l97(co, t))
	t.Printf("l98 returns %d", l98(co, t))
	t.Printf("l99 returns %d", l99(co, t))
	t.Printf("l100 returns %d", l100(co, t))
	t.Printf("l101 returns %d", l101(co, t))
	t.Printf("l102 returns %d", l102(co, t))
}
