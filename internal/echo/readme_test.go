package echo_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADME checks that the README's two snippets of "One source, both
// models" are this package's code, verbatim: echo.go from its package
// clause to the end of Echo (MsgSize included), and the body of Example
// up to its Output comment. Both compile and run as part of this package,
// so the snippets do.
func TestREADME(t *testing.T) {
	readme := read(t, "../../README.md")
	blocks := goBlocks(readme)

	echoGo := read(t, "echo.go")
	end := strings.Index(echoGo[strings.Index(echoGo, "func Echo("):], "\n}\n")
	if end < 0 {
		t.Fatal("echo.go: no end of Echo")
	}
	source := echoGo[:strings.Index(echoGo, "func Echo(")+end+3]

	example := read(t, "example_test.go")
	start := strings.Index(example, "func Example() {\n")
	stop := strings.Index(example, "\t// Output:")
	if start < 0 || stop < start {
		t.Fatal("example_test.go: no Example with an Output comment")
	}
	var body strings.Builder
	for _, line := range strings.Split(strings.TrimRight(example[start+len("func Example() {\n"):stop], "\n"), "\n") {
		body.WriteString(strings.TrimPrefix(line, "\t") + "\n")
	}

	for _, want := range []struct{ name, text string }{
		{"echo.go (MsgSize and Echo)", source},
		{"Example's body", body.String()},
	} {
		found := false
		for _, b := range blocks {
			if b == want.text {
				found = true
			}
		}
		if !found {
			t.Errorf("README.md has no go block equal to %s:\n%s", want.name, want.text)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// goBlocks returns the contents of the ```go fenced blocks of a Markdown
// text.
func goBlocks(md string) []string {
	var out []string
	for {
		i := strings.Index(md, "```go\n")
		if i < 0 {
			return out
		}
		md = md[i+len("```go\n"):]
		j := strings.Index(md, "```\n")
		if j < 0 {
			return out
		}
		out = append(out, md[:j])
		md = md[j:]
	}
}
