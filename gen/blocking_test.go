package gen_test

import (
	"testing"

	"github.com/cogen-go/cogen/gen"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestBlocking checks the blocking check's reports (// want comments in
// testdata/src/blocking) and the code its suggested fixes leave
// (blocking.go.golden): co.Sleep for time.Sleep and <-time.After,
// co.Offload for a wait statement, conet.Dial with its import.
func TestBlocking(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), gen.Analyzer, "blocking")
}
