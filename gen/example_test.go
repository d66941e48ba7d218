package gen_test

import (
	"fmt"

	"github.com/cogen-go/cogen/gen"
)

// The generated file sits beside its source; suffixes that constrain the
// build stay last, so the output is built exactly when its source is.
func ExampleOutputName() {
	fmt.Println(gen.OutputName("handler/echo.go"))
	fmt.Println(gen.OutputName("handler/echo_linux.go"))
	fmt.Println(gen.OutputName("handler/echo_test.go"))
	// Output:
	// handler/echo_cogen.go
	// handler/echo_cogen_linux.go
	// handler/echo_cogen_test.go
}
