package gen_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogen-go/cogen/gen"
)

const badSource = `package bad

import "github.com/cogen-go/cogen/runtime/stackful"

//co:stackless
func Bad(co *stackful.Co) {
	defer co.Gosched()
	co.Gosched()
}

//co:stackless
func Good(co *stackful.Co) {
	co.Gosched()
}
`

// writeBad adds a package with a diagnostic to the test module.
func writeBad(t *testing.T, w *workspace) string {
	dir := filepath.Join(w.dir, "bad")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.go"), []byte(badSource), 0o666); err != nil {
		t.Fatal(err)
	}
	return dir
}

func cogen(t *testing.T, dir string, args ...string) (string, int) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(goEnv(dir), asCogen+"=1")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// TestCLI checks the exit statuses: 1 with diagnostics (and nothing
// written, not even for the good function), 2 on bad usage, 0 otherwise.
func TestCLI(t *testing.T) {
	w := setup(t)
	dir := writeBad(t, w)
	out, code := cogen(t, dir)
	if code != 1 || !strings.Contains(out, "bad.go:7:8: a deferred call cannot suspend") {
		t.Errorf("diagnostics: exit %d, output:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad_cogen.go")); !os.IsNotExist(err) {
		t.Errorf("cogen wrote output despite a diagnostic: %v", err)
	}
	if out, code := cogen(t, dir, "-nosuchflag"); code != 2 {
		t.Errorf("bad usage: exit %d, output:\n%s", code, out)
	}
	if out, code := cogen(t, w.dir, "-n", "./cases/sleep"); code != 0 || out != "" {
		t.Errorf("-n on a good package: exit %d, output:\n%s", code, out)
	}
	// -n exits 1 when a generated file is stale, missing or no longer
	// needed, and writes nothing.
	nd := filepath.Join(w.dir, "ncheck")
	sleepSrc, err := os.ReadFile(filepath.Join(corpus, "sleep.go"))
	if err != nil {
		t.Fatal(err)
	}
	nsrc := strings.Replace(string(sleepSrc), "package sleep", "package ncheck", 1)
	if err := os.MkdirAll(nd, 0o777); err != nil {
		t.Fatal(err)
	}
	srcPath, outPath := filepath.Join(nd, "ncheck.go"), filepath.Join(nd, "ncheck_cogen.go")
	if err := os.WriteFile(srcPath, []byte(nsrc), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, code := cogen(t, nd, "-n"); code != 1 || !strings.Contains(out, "ncheck_cogen.go is missing") {
		t.Errorf("-n with the generated file missing: exit %d, output:\n%s", code, out)
	}
	if _, err := os.Stat(outPath); !os.IsNotExist(err) {
		t.Errorf("-n wrote %s", outPath)
	}
	if out, code := cogen(t, nd); code != 0 {
		t.Fatalf("cogen: exit %d\n%s", code, out)
	}
	if out, code := cogen(t, nd, "-n"); code != 0 || out != "" {
		t.Errorf("-n right after generating: exit %d, output:\n%s", code, out)
	}
	fresh, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(srcPath, []byte(strings.Replace(nsrc, "sum := 0", "sum := 1", 1)), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, code := cogen(t, nd, "-n"); code != 1 || !strings.Contains(out, "ncheck_cogen.go is stale") {
		t.Errorf("-n with a stale file: exit %d, output:\n%s", code, out)
	}
	if now, _ := os.ReadFile(outPath); !bytes.Equal(now, fresh) {
		t.Errorf("-n rewrote the stale file")
	}
	unmarked := strings.ReplaceAll(nsrc, "//co:stackless", "")
	if err := os.WriteFile(srcPath, []byte(unmarked), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, code := cogen(t, nd, "-n"); code != 1 || !strings.Contains(out, "ncheck_cogen.go is no longer needed") {
		t.Errorf("-n with a file no longer needed: exit %d, output:\n%s", code, out)
	}
	// More references to names about to be generated than the compiler
	// lists (10, then "too many errors") are expected too.
	refs := nsrc + strings.Repeat("\nvar _ = NewRunFrame", 12) + "\n"
	if err := os.WriteFile(srcPath, []byte(refs), 0o666); err != nil {
		t.Fatal(err)
	}
	os.Remove(outPath)
	if out, code := cogen(t, nd); code != 0 {
		t.Errorf("12 references to a generated name: exit %d, output:\n%s", code, out)
	}
	os.RemoveAll(nd)
	if out, code := cogen(t, w.dir, "./nosuchdir"); code != 1 || !strings.HasPrefix(out, "cogen: ") {
		t.Errorf("missing package: exit %d, output:\n%s", code, out)
	}
	// A package that uses generated frames, its own or another package's,
	// can be regenerated: references to the names about to be generated
	// are expected while the old output is set aside.
	user := filepath.Join(w.dir, "user")
	if err := os.MkdirAll(user, 0o777); err != nil {
		t.Fatal(err)
	}
	src := "package user\n\nimport \"cogentest/cases/sleep\"\n\nvar _ = sleep.NewRunFrame\n"
	if err := os.WriteFile(filepath.Join(user, "user.go"), []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, code := cogen(t, w.dir, "-n", "./cases/sleep", "./user"); code != 0 {
		t.Errorf("package using generated names: exit %d, output:\n%s", code, out)
	}
	if err := os.WriteFile(filepath.Join(user, "user.go"), []byte(src+"var _ = sleep.NoSuchName\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, code := cogen(t, w.dir, "-n", "./cases/sleep", "./user"); code != 1 || !strings.Contains(out, "NoSuchName") {
		t.Errorf("real type error: exit %d, output:\n%s", code, out)
	}
	os.RemoveAll(user)
}

// TestVetTool runs cogen as go vet's analysis tool.
func TestVetTool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	w := setup(t)
	writeBad(t, w)
	cmd := exec.Command("go", "vet", "-vettool="+os.Args[0], "./bad", "./cases/sleep")
	cmd.Dir = w.dir
	cmd.Env = append(goEnv(w.dir), asCogen+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "bad.go:7:8: a deferred call cannot suspend") {
		t.Errorf("go vet -vettool=cogen: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "sleep") {
		t.Errorf("diagnostics for a good package:\n%s", out)
	}

	// An edit not followed by regeneration is reported.
	stale := filepath.Join(w.dir, "stale")
	src, err := os.ReadFile(filepath.Join(corpus, "sleep.go"))
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.Replace(string(src), "package sleep", "package stale", 1))
	if err := os.MkdirAll(stale, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "stale.go"), src, 0o666); err != nil {
		t.Fatal(err)
	}
	if out, code := cogen(t, stale); code != 0 {
		t.Fatalf("cogen: exit %d\n%s", code, out)
	}
	vet := func() (string, error) {
		cmd := exec.Command("go", "vet", "-vettool="+os.Args[0], "./stale")
		cmd.Dir = w.dir
		cmd.Env = append(goEnv(w.dir), asCogen+"=1")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := vet(); err != nil {
		t.Errorf("fresh output: %v\n%s", err, out)
	}
	edited := strings.Replace(string(src), "sum := 0", "sum := 1", 1)
	if err := os.WriteFile(filepath.Join(stale, "stale.go"), []byte(edited), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, err := vet(); err == nil || !strings.Contains(out, "stale_cogen.go:4:1: stale_cogen.go is stale: run go generate") {
		t.Errorf("stale output not reported: %v\n%s", err, out)
	}
	os.RemoveAll(stale)
}

// TestFixedPoint checks that generating and then checking agree: right
// after cogen wrote them, every corpus package (importsonly's output
// imports packages its source does not) passes go vet with cogen as its
// tool and cogen -n.
func TestFixedPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	w := setup(t)
	if out, code := cogen(t, w.dir, "-n", "./cases/..."); code != 0 {
		t.Errorf("cogen -n right after cogen: exit %d\n%s", code, out)
	}
	// go vet also reports the corpus's waits in Go's scheduler (the
	// blocking check): only a stale report, or a failure without reports,
	// is a failure here.
	cmd := exec.Command("go", "vet", "-vettool="+os.Args[0], "./cases/...")
	cmd.Dir = w.dir
	cmd.Env = append(goEnv(w.dir), asCogen+"=1")
	out, err := cmd.CombinedOutput()
	blocking := 0
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "# "):
		case strings.Contains(line, "freezes the coroutine's whole env"):
			blocking++
		default:
			t.Errorf("go vet -vettool=cogen right after cogen: %s", line)
		}
	}
	if err != nil && blocking == 0 {
		t.Errorf("go vet -vettool=cogen right after cogen: %v\n%s", err, out)
	}
}

func TestOutputName(t *testing.T) {
	for src, want := range map[string]string{
		"a/echo.go":               "a/echo_cogen.go",
		"echo_test.go":            "echo_cogen_test.go",
		"echo_linux.go":           "echo_cogen_linux.go",
		"echo_linux_amd64.go":     "echo_cogen_linux_amd64.go",
		"echo_amd64_test.go":      "echo_cogen_amd64_test.go",
		"my_handler.go":           "my_handler_cogen.go",
		"linux.go":                "linux_cogen.go",
		"x_windows_arm64_test.go": "x_cogen_windows_arm64_test.go",
	} {
		if got := gen.OutputName(src); got != want {
			t.Errorf("OutputName(%q) = %q, want %q", src, got, want)
		}
	}
}
