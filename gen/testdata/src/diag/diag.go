package diag

import (
	collideImportFrame "strings"
	"time"

	"diag/other"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

//co:stackfull // want `unknown directive //co:stackfull`
func unknown() {}

//co:stackless please // want `//co:stackless takes no argument but durable`
func withArgs(co *stackful.Co) {}

//co:stackless // want `misplaced //co:stackless: it must be in the doc comment of a function`
type notAFunction struct{}

//co:stackless
func noHandle(x int) {} // want `must take the coroutine handle \*stackful.Co as its first parameter`

//co:stackless
func handleLast(x int, co *stackful.Co) {} // want `must take the coroutine handle`

//co:stackless
func noBody(co *stackful.Co) // want `has no body`

func plain(co *stackful.Co) {}

var saved *stackful.Co

//co:stackless
func escapes(co *stackful.Co) {
	plain(co)  // want `the coroutine handle co may only call its waiting methods`
	saved = co // want `the coroutine handle co may only call its waiting methods`
	c := co    // want `the coroutine handle co may only call its waiting methods`
	_ = c
	f := co.Sleep // want `method value Sleep of the coroutine handle is not supported`
	_ = f
	co.Resume()        // want `method Resume of the coroutine handle has no stackless counterpart`
	saved.Gosched()    // want `Gosched is called on a coroutine handle other than the function's own`
	go co.Gosched()    // want `a suspension point cannot be the call of a go statement: the new goroutine has no coroutine handle`
	go helper(co)      // want `a suspension point cannot be the call of a go statement`
	defer co.Gosched() // want `a deferred call cannot suspend: deferred calls run when the frame returns or a panic unwinds it, outside its steps`
	defer helper(co)   // want `a deferred call cannot suspend`
	helper(saved)      // want `helper must be called with the caller's coroutine handle as its first argument`
	_ = co.Close(3)
}

//co:stackless
func helper(co *stackful.Co) {
	co.Gosched()
}

//co:stackless
func unsupported(co *stackful.Co, ch chan int) {
	defer println() // fine since v2
	_ = recover()   // fine: nil, as in any function that is not deferred
	func() {
		co.Sleep(time.Second) // fine since v2: a closure that suspends, called at once
	}()
	select { // want `select with a suspension point in it is not supported in //co:stackless functions \(v1\); use cosync.Select over cosync.Chan cases \(RecvCase, SendCase, Default, After\), which waits through the coroutine handle$`
	case <-ch:
		co.Gosched()
	default:
	}
	select {
	case v := <-ch:
		println(v)
	default:
	}
	func() {
		defer println() // fine: the closure's own defer
		_ = recover()
	}()
}

//co:stackless
func localType(co *stackful.Co) {
	type local struct{ x int }
	v := local{} // want `v lives across a suspension but its type mentions local, declared inside the function`
	co.Gosched()
	_ = v
	w := local{x: 1} // fine: w does not live across a suspension
	_ = w
}

//co:stackless
func localTemp(co *stackful.Co) {
	type local struct{ x int }
	mk := func() local { return local{} }
	use := func(local, int) {} // want `use lives across a suspension`
	use(mk(), count(co))       // want `the value of mk\(\) lives across a suspension but its type mentions local, declared inside the function`
}

//co:stackless
func count(co *stackful.Co) int {
	co.Gosched()
	return 1
}

//co:stackless
func nanKeys(co *stackful.Co, m map[float64]int) {
	for k := range m { // want `range over a map whose keys may be NaN across a suspension point is not supported`
		co.Gosched()
		_ = k
	}
	for k := range m { // fine: no suspension in the body
		_ = k
	}
}

//co:stackless
func unnameable(co *stackful.Co) {
	s := other.New() // want `the type of s mentions secret, which generated code cannot name`
	co.Gosched()
	_ = s.N
}

type inner struct{}

//co:stackless
func (inner) Work(co *stackful.Co) {
	co.Gosched()
}

type outer struct{ inner }

//co:stackless
func promoted(co *stackful.Co, o outer) {
	o.Work(co) // fine: the receiver is o.inner
}

type collideFrame struct{}

//co:stackless
func collide(co *stackful.Co) {} // want `generated name collideFrame of collide collides with collideFrame declared at`

var _ = collideImportFrame.ToUpper

//co:stackless
func collideImport(co *stackful.Co) {} // want `generated name collideImportFrame of collideImport collides with the import named collideImportFrame at`

// Local types keep their names in generated code, or are refused.

//co:stackless
func twoLocalTypes(co *stackful.Co) {
	{
		type dup int
		co.Gosched()
		_ = dup(1)
	}
	{
		type dup string // want `cannot keep the name of local type dup: another type or constant of the function has that name`
		co.Gosched()
		_ = dup("x")
	}
	{
		type dup2 int // fine: a statement without a suspension point keeps its own scope
		_ = dup2(1)
	}
	{
		type dup2 string
		_ = dup2("x")
	}
}

//co:stackless
func shadowsPredeclared(co *stackful.Co) {
	type error int // want `cannot keep the name of local type error: it shadows the predeclared error`
	co.Gosched()
	_ = error(1)
}

func helperFn() int { return 1 }

//co:stackless
func shadowsFunc(co *stackful.Co) {
	n := helperFn()
	co.Gosched()
	type helperFn struct{} // want `cannot keep the name of local type helperFn: it shadows the package-level helperFn, which the function also uses`
	_ = helperFn{}
	_ = n
}

type shadowedType struct{ n int }

//co:stackless
func shadowsType(co *stackful.Co) {
	a := shadowedType{1} // fine: Step names the package-level type by an alias
	co.Gosched()
	type shadowedType struct{ s string }
	b := shadowedType{"x"}
	_, _ = a, b
}

//co:stackless
func localAlias(co *stackful.Co) {
	type alias = shadowedType
	v := alias{1} // fine: the frame names the aliased type
	co.Gosched()
	_ = v
}

func notMarked(co *stackful.Co) {
	//co:stackless // want `misplaced //co:stackless`
	co.Gosched()
}

//co:stackless
func handles(co *stackful.Co, c *cosync.Chan[int]) {
	c.Recv(co)               // a suspension point
	var h cosync.Handle = co // want `the coroutine handle co may only call its waiting methods, be passed as the first argument of a //co:stackless function or to a parameter of type cosync.Handle`
	_ = h
	_ = c.Peek(co)          // want `the coroutine handle co may only call`
	go c.Recv(co)           // want `a suspension point cannot be the call of a go statement`
	func() { c.Recv(co) }() // fine since v2
}

type holder struct{ f func() }

//co:stackless
func escaping(co *stackful.Co, fs []func(), hd *holder) {
	f := func() { co.Gosched() } // want `a closure that suspends must be called where it is defined \(at once, or through a local variable that is only called\): this one is held in f, which is used other than by calling it`
	fs = append(fs, f)
	fs = append(fs, func() { co.Gosched() }) // want `this one is passed to a function`
	hd.f = func() { co.Gosched() }           // want `this one is assigned to a variable that is not a new local`
	h := func() { co.Gosched() }
	g := func() { h() } // fine: g suspends through h
	g()
	go func() { h() }()             // want `a suspension point cannot be the call of a go statement`
	defer func() { co.Gosched() }() // want `a deferred call cannot suspend`
	go func() { co.Gosched() }()    // want `a suspension point cannot be the call of a go statement`
	ok := func(c *stackful.Co) { c.Gosched() }
	ok(co)
	ok(nil) // want `the closure defined at line \d+ must be called with the caller's coroutine handle as its first argument`
}

//co:stackless
func returnsClosure(co *stackful.Co) func() {
	return func() { co.Gosched() } // want `this one is returned`
}

//co:stackless
func genericClosure[T any](co *stackful.Co, x T) {
	func() { co.Gosched() }() // want `a closure that suspends is not supported in a generic function`
}

//co:stackless
func setAnyTo(co *stackful.Co, p *any, v any) int {
	co.Gosched()
	*p = v
	return 0
}

// The order gc evaluates these operands in depends on the type argument's
// shape (gc compiles generic code once per shape): refused, unless the
// operand cannot be observed (a local variable no one can change) or the
// constraint lists types of one kind.
//
//co:stackless
func genericShapes[K comparable, T any, P interface{ *int | *string }](co *stackful.Co, m map[K]int, k K, x any, vals map[string]T) {
	println(m[k], setAnyTo(co, &x, 1)) // fine: k is a parameter no one can change
	k2 := k
	println(m[k2], setAnyTo(co, &x, 1)) // fine
	kk := k
	pk := &kk
	println(m[kk], setAnyTo(co, &x, pk))         // want `the order gc evaluates this operand in \(used as a map key, left of a suspension point\) depends on the type arguments' shapes`
	println(any(vals["a"]), setAnyTo(co, &x, 1)) // want `depends on the type arguments' shapes`
	println(x.(P) != nil, setAnyTo(co, &x, 1))   // fine: a dynamic assertion is read late
	println(any(x.(T)), setAnyTo(co, &x, 1))     // want `converted to an interface, left of a suspension point\) depends on the type arguments' shapes`
}

type adder struct{ n int }

//co:stackless
func (a *adder) Add(co *stackful.Co, n int) {
	co.Gosched()
	a.n += n
}

//co:stackless
func methodValues(co *stackful.Co, a *adder) {
	a.Add(co, 1)
	add := a.Add      // want `method value a.Add of the //co:stackless method Add is not supported: call the method where it is used`
	add(co, 2)        // want `the coroutine handle co may only call its waiting methods`
	h := (*adder).Add // want `method value \(\*adder\).Add of the //co:stackless method Add is not supported`
	h(a, co, 3)       // want `the coroutine handle co may only call its waiting methods`
}
