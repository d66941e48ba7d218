package durable_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/cogen-go/cogen/gen"
)

// TestWorkflowsGenerated: the generated code of the test workflows, which
// .ci/stale does not see (they live under testdata), is up to date.
func TestWorkflowsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages from source")
	}
	files, diags, err := gen.RunDir("testdata/testwf", []string{"."}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %q", diags)
	}
	if len(files) == 0 {
		t.Fatal("nothing generated")
	}
	for _, f := range files {
		old, err := os.ReadFile(f.Path)
		if err != nil || !bytes.Equal(old, f.Content) {
			t.Errorf("%s is stale (%v): run go generate in durable/testdata/testwf", f.Path, err)
		}
	}
}
