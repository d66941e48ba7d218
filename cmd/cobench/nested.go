//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildNested builds package pkg (relative to the module) of the nested
// module at dir (a path relative to the root of the source tree this
// command runs in, the module that `go env GOMOD` names) into a fresh
// temporary directory as name, and returns the binary and the function that
// removes it. Nested modules keep their dependencies (gnet, fasthttp,
// go-redis) out of this module's.
func buildNested(p *progress, dir, pkg, name, what string, flags ...string) (exe string, cleanup func(), err error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", nil, errors.New("not inside a module; run cobench from the cogen source tree")
	}
	src := filepath.Join(filepath.Dir(gomod), dir)
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		return "", nil, fmt.Errorf("no module at %s; run cobench from the cogen source tree", src)
	}
	tmp, err := os.MkdirTemp("", "cobench-"+name+"-")
	if err != nil {
		return "", nil, err
	}
	exe = filepath.Join(tmp, name)
	p.step("go build in %s: a first build downloads and compiles the dependencies, a minute or more", src)
	end := p.begin(fmt.Sprintf("build %s from %s (%s)", name, filepath.Join(dir, pkg), what))
	cmd := exec.Command("go", append(append([]string{"build", "-o", exe}, flags...), pkg)...)
	cmd.Dir = src
	var msg []byte
	err = p.during(func() (err error) {
		msg, err = cmd.CombinedOutput()
		return err
	})
	end(nil, err)
	if err != nil {
		os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("building %s: %v\n%s", src, err, msg)
	}
	return exe, func() { os.RemoveAll(tmp) }, nil
}
