package shadowtype

import "github.com/cogen-go/cogen/runtime/stackful"

// int hides the predeclared int from the generated code of the package.
type int struct{}

//co:stackless
func Keeps(co *stackful.Co) {
	x := 1 // want `the type of x mentions the predeclared int, which int declared at .* hides from generated code; rename that`
	co.Gosched()
	_ = x
}

//co:stackless
func Tparam[string any](co *stackful.Co, v string) { // want `string declared at .* hides the predeclared string, which the code generated for Tparam uses`
	co.Gosched()
	_ = v
}
