// Package handle says what cogen's analyzers know of the coroutine handle,
// *stackful.Co: its package, and which of its methods suspend. gen and
// gen/blocking share it, so that the two cannot disagree.
package handle

import "go/types"

// StackfulPath is the package of the handle.
const StackfulPath = "github.com/cogen-go/cogen/runtime/stackful"

// WaitingMethods are the suspension points on the handle: methods of
// *stackful.Co that *stackless.Task mirrors with identical signatures.
var WaitingMethods = map[string]bool{
	"Read": true, "ReadTimeout": true, "Write": true, "WriteTimeout": true, "Accept": true,
	"AcceptTimeout": true, "Connect": true, "ConnectTimeout": true, "Poll": true,
	"Sleep": true, "Gosched": true, "Wait": true, "Yield": true,
}

// IsCo reports whether t is *stackful.Co.
func IsCo(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && n.Obj().Name() == "Co" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == StackfulPath
}
