// Package fileio holds blocking file and process I/O in coroutine code
// that is not //co:stackless: each report with its co.Offload fix.
package fileio

import (
	"io/fs"
	"os"
	"os/exec"

	"github.com/cogen-go/cogen/runtime/stackful"
)

func files(co *stackful.Co, f *os.File, p []byte, cmd *exec.Cmd) error {
	data, err := os.ReadFile("in") // want `os.ReadFile waits in Go's scheduler .*: use co.Offload`
	if err != nil {
		return err
	}
	err = os.WriteFile("out", data, 0o644) // want `os.WriteFile waits`
	os.Remove("old")                       // want `os.Remove waits`
	n, err := f.Read(p)                    // want `os.File.Read waits`
	_ = n
	f.Sync()               // want `os.File.Sync waits`
	out, _ := cmd.Output() // want `exec.Cmd.Output waits`
	_ = out
	if _, err := os.Stat("x"); err != nil { // want `os.Stat waits`
		return err // an if's init: no place for declarations, no fix
	}
	return err
}

// A := declares its new variables with the types the file can name (an
// alias keeps its name: os.FileInfo); a type of a package the file does
// not import gets no fix.
func infos(co *stackful.Co) (fs.FileInfo, error) {
	fi, err := os.Lstat("x") // want `os.Lstat waits`
	return fi, err
}

func entries(co *stackful.Co) int {
	es, _ := os.ReadDir(".") // want `os.ReadDir waits`
	return len(es)
}
