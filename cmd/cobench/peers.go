//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The peers' servers live in the nested module bench/peers (gnet and
// fasthttp are not dependencies of this module): with -peers, cobench
// builds that module's binary into a temporary directory and runs it
// instead of itself as the child of a peer's row. The binary speaks the
// child protocol of child.go and serves the same load client.

// peerModels are the peers' servers by load kind, with their row names.
var peerModels = map[string][]string{
	"echo": {"gnet/1", "gnet/N"},
	"http": {"fasthttp"},
}

var peerNames = map[string]string{
	"gnet/1":   "gnet (1 loop)",
	"gnet/N":   "gnet (N loops)",
	"fasthttp": "fasthttp",
}

// peersExe is the built peers binary; empty without -peers.
var peersExe string

// childExe returns the binary that runs t: the peers binary for a peer's
// model, this one for ours.
func childExe(t task) (string, error) {
	if slices.Contains(peerModels[t.Kind], t.Mode) {
		if peersExe == "" {
			return "", fmt.Errorf("%s %s: a peer's row without -peers", t.Kind, t.Mode)
		}
		return peersExe, nil
	}
	return os.Executable()
}

// buildPeers builds the peers binary from the source tree this command runs
// in (the module root that `go env GOMOD` names), sets peersExe, and returns
// the function that removes it.
func buildPeers(p *progress) (cleanup func(), err error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return nil, fmt.Errorf("-peers: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	src := filepath.Join(filepath.Dir(gomod), "bench", "peers")
	if gomod == "" || gomod == os.DevNull {
		return nil, errors.New("-peers: not inside a module; run cobench from the cogen source tree")
	}
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		return nil, fmt.Errorf("-peers: no peers module at %s; run cobench from the cogen source tree", src)
	}
	dir, err := os.MkdirTemp("", "cobench-peers-")
	if err != nil {
		return nil, err
	}
	exe := filepath.Join(dir, "peers")
	p.step("peers: building %s (gnet, fasthttp)", src)
	cmd := exec.Command("go", "build", "-o", exe, ".")
	cmd.Dir = src
	if msg, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("-peers: building %s: %v\n%s", src, err, msg)
	}
	peersExe = exe
	return func() { os.RemoveAll(dir); peersExe = "" }, nil
}
