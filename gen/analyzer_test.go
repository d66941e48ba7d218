package gen_test

import (
	"testing"

	"github.com/cogen-go/cogen/gen"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestAnalyzer checks every diagnostic at its position (// want comments
// in testdata/src/diag) and that correct code has none.
func TestAnalyzer(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), gen.Analyzer, "diag", "good", "shadow", "shadowtype", "durable", "extuser", "codeclib", "codeclib2")
	for _, r := range results {
		if r.Pass.Pkg.Path() == "extuser" {
			// Calls of another package's marked functions are child frames.
			good := r.Result.(*gen.Result).Funcs[0]
			if !good.OK || good.Decl.Name.Name != "Good" {
				t.Errorf("extuser.Good: ok=%v", good.OK)
			}
			continue
		}
		if r.Pass.Pkg.Path() != "good" {
			continue
		}
		res := r.Result.(*gen.Result)
		if len(res.Funcs) != 2 {
			t.Fatalf("good: %d marked functions, want 2", len(res.Funcs))
		}
		echo := res.Funcs[0]
		if !echo.OK || echo.FrameName != "EchoFrame" || echo.CtorName != "NewEchoFrame" {
			t.Errorf("Echo: ok=%v frame=%s ctor=%s", echo.OK, echo.FrameName, echo.CtorName)
		}
		// Liveness: fd, buf and n (an argument of the retried Write) live
		// across the waits; err stays a local of Step.
		got := echo.Fields()
		want := []string{"fd", "r", "buf", "n"}
		if len(got) != len(want) {
			t.Fatalf("Echo frame fields %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("Echo frame fields %v, want %v", got, want)
			}
		}
		if res.Funcs[1].FrameName != "twoWaitsFrame" || res.Funcs[1].CtorName != "newTwoWaitsFrame" {
			t.Errorf("unexported names: %s %s", res.Funcs[1].FrameName, res.Funcs[1].CtorName)
		}
	}
}
