package shadow

import "github.com/cogen-go/cogen/runtime/stackful"

// len hides the predeclared len from the generated code of the package.
func len(s []int) int { return 0 }

//co:stackless
func Uses(co *stackful.Co) { // want `len declared at .* hides the predeclared len, which the code generated for Uses uses; rename it`
	co.Gosched()
}
