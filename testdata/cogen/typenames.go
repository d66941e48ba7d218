package typenames

import (
	"errors"
	"fmt"
	"reflect"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// item is a package-level type that local types of the same name shadow.
type item struct{ n int }

func (i item) String() string { return fmt.Sprint("pkg item ", i.n) }

func mkItem(n int) item { return item{n} }

// describe reports the dynamic type of v as %T, reflection and an error
// text see it.
func describe(v any) string {
	t := reflect.TypeOf(v)
	return fmt.Sprintf("%T name=%s string=%s err=%v", v, t.Name(), t.String(), fmt.Errorf("bad %T", v))
}

// Run declares local types that generated code moves to the top of Step:
// they keep their names, so %T, reflection and error texts read the same
// in both models (issue 23, class 4).
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	outer := item{1} // the package-level item, live across suspensions
	type item struct {
		name string
		n    int
	}
	type pair [2]item
	// Values of local types cannot live across a suspension (the frame is
	// a package-level type); between suspensions they are Step locals.
	n := t.Rand.Intn(5)
	co.Gosched()
	x := item{"local", n}
	p := pair{x, {"second", 2}}
	t.Printf("%s", describe(x))
	t.Printf("%s", describe(p))
	t.Printf("%s", describe(outer))
	y := mkItem(2) // the package-level item, a Step local
	t.Printf("%v %v %v %s", outer, x, y, describe(y))
	co.Gosched()
	var e error = errors.New("boom")
	type wrapped struct{ error }
	t.Printf("%s %v", describe(wrapped{e}), wrapped{e})
	co.Gosched()
	t.Printf("%s", other(co, t))
	t.Printf("%s", generic(co, 3))
	t.Printf("%s", generic(co, "s"))
	t.Printf("%s", aliases(co, t))
}

// other has a local type of the same name as Run's.
//
//co:stackless
func other(co *stackful.Co, t *trace.T) string {
	type item int
	n := t.Rand.Intn(9)
	co.Gosched()
	v := item(n)
	return describe(v) + " / " + describe(mkItem(int(v)))
}

// generic has a local type in a generic function: its name carries the
// type arguments in both models.
//
//co:stackless
func generic[T any](co *stackful.Co, x T) string {
	type item struct{ v T }
	co.Gosched()
	return describe(item{x})
}

// aliases keeps a value whose type is a local alias of a package-level
// type across a suspension: the frame names the aliased type.
//
//co:stackless
func aliases(co *stackful.Co, t *trace.T) string {
	type it = item
	type its = []it
	v := its{{1}, {t.Rand.Intn(3)}}
	co.Gosched()
	v = append(v, it{4})
	return describe(v) + " " + fmt.Sprint(v)
}
