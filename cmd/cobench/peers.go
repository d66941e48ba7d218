//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The peers' servers live in the nested module bench/peers (gnet, netpoll,
// nbio and fasthttp are not dependencies of this module): with -peers, cobench
// builds that module's binary into a temporary directory and runs it
// instead of itself as the child of a peer's row. The binary speaks the
// child protocol of child.go and serves the same load client.

// peerModels are the peers' servers by load kind, with their row names.
var peerModels = map[string][]string{
	"echo":      {"gnet/1", "gnet/N", "netpoll/1", "netpoll/N", "nbio/1", "nbio/N"},
	"http":      {"fasthttp", "nbhttp"},
	"http-wait": {"fasthttp", "nbhttp"},
}

var peerNames = map[string]string{
	"gnet/1":    "gnet (1 loop)",
	"gnet/N":    "gnet (N loops)",
	"netpoll/1": "netpoll (1 poller, handlers on its goroutine pool)",
	"netpoll/N": "netpoll (N pollers, handlers on its goroutine pool)",
	"nbio/1":    "nbio (1 poller)",
	"nbio/N":    "nbio (N pollers)",
	"fasthttp":  "fasthttp",
	"nbhttp":    "nbhttp (nbio, 1 poller, handlers on its task pool)",
}

// peersExe is the built peers binary; empty without -peers.
var peersExe string

// childExe returns the binary that runs t: the peers binary for a peer's
// model, this one for ours.
func childExe(t task) (string, error) {
	if t.Kind == "coromicro" {
		if coroExe == "" {
			return "", fmt.Errorf("coromicro: no coroswitch build")
		}
		return coroExe, nil
	}
	if slices.Contains(peerModels[t.Kind], t.Mode) {
		if peersExe == "" {
			return "", fmt.Errorf("%s %s: a peer's row without -peers", t.Kind, t.Mode)
		}
		return peersExe, nil
	}
	return os.Executable()
}

// buildPeers builds the peers binary from the source tree this command runs
// in (bench/peers, see buildNested), sets peersExe, and returns the function
// that removes it.
func buildPeers(p *progress) (cleanup func(), err error) {
	exe, rm, err := buildNested(p, filepath.Join("bench", "peers"), ".", "peers", "gnet, netpoll, nbio, fasthttp")
	if err != nil {
		return nil, fmt.Errorf("-peers: %w", err)
	}
	peersExe = exe
	return func() { rm(); peersExe = "" }, nil
}
