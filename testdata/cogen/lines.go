package lines

import (
	"path/filepath"
	"runtime"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func where(t *trace.T, what string) {
	_, file, line, _ := runtime.Caller(1)
	t.Printf("%s at %s:%d", what, filepath.Base(file), line)
}

// Run checks the //line directives: code running in the generated frame
// reports the positions of the source.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	where(t, "start")
	co.Gosched()
	where(t, "after suspension")
	for i := 0; i < 2; i++ {
		co.Gosched()
		if i == 1 {
			where(t, "in loop")
		}
	}
	v := helper(co)
	where(t, "after call")
	t.Printf("v %d", v)
}

//co:stackless
func helper(co *stackful.Co) int {
	co.Gosched()
	_, _, line, _ := runtime.Caller(0)
	return line
}
