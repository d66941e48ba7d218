// Command cogen rewrites Go functions marked //co:stackless into stackless
// state machines that run on runtime/stackless.
//
// Usage:
//
//	cogen [-n] [-tags list] [packages]
//
// Set it up in a module as a tool (Go 1.26, which cogen needs), once:
//
//	go get -tool github.com/cogen-go/cogen/cmd/cogen
//
// With no packages it processes the package in the current directory, so
// a source file only needs
//
//	//go:generate go tool cogen
//
// For each source file with marked functions it writes <file>_cogen.go
// beside it (and removes generated files that are no longer needed). If any
// diagnostic is reported it writes nothing and exits with status 1; bad
// usage exits with status 2. With -n it only checks: it writes nothing and
// exits with status 1 if there is a diagnostic or a generated file is
// missing, stale or no longer needed (for CI and pre-commit hooks).
//
// cogen is also a go vet tool that reports the same diagnostics:
//
//	go vet -vettool=$(go tool -n cogen) ./...
//
// See package github.com/cogen-go/cogen/gen for the source-level API.
package main

import (
	"os"

	"github.com/cogen-go/cogen/gen"
)

func main() {
	os.Exit(gen.Main(os.Args[1:], os.Stderr))
}
