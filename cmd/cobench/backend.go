//go:build unix

package main

import (
	"strings"
	"sync"

	"github.com/cogen-go/cogen/runtime/loop"
)

// The io_uring rows: a model name with uringSuffix runs the model with its
// loops on the io_uring backend (task.Backend "uring"); its row's name is
// the epoll row's with uringName appended.
const (
	uringSuffix = "@uring"
	uringName   = ", io_uring"
)

// uringModels are the models of each load kind measured on both backends:
// one per coroutine model (the others, and the Go and peer rows, run on
// epoll only, to keep the run's length).
var uringModels = map[string][]string{
	"echo": {"stackless/generated", "stackful"},
	"http": {"stackless/cohttp", "stackful/cohttp"},
	// scale: the model on loop.Group / stackful.Group at 1 and N loops.
	"scale/echo": {"stackless"},
	"scale/http": {"stackless"},
}

// withUring returns models plus the io_uring variants of kind's, when this
// machine's kernel gives io_uring.
func withUring(kind string, models []string) []string {
	if !uringAvailable() {
		return models
	}
	for _, m := range uringModels[kind] {
		models = append(models, m+uringSuffix)
	}
	return models
}

// splitBackend separates a model of withUring into the model and its
// task.Backend.
func splitBackend(model string) (base, backend string) {
	if b, ok := strings.CutSuffix(model, uringSuffix); ok {
		return b, "uring"
	}
	return model, ""
}

// backendSuffix is the model-name suffix of a task.Backend.
func backendSuffix(backend string) string {
	if backend == "uring" {
		return uringSuffix
	}
	return ""
}

// rowName appends uringName to name for an io_uring model.
func rowName(model, name string) string {
	if _, b := splitBackend(model); b != "" {
		return name + uringName
	}
	return name
}

// uringAvailable reports whether a loop gets io_uring here (probed once).
var uringAvailable = sync.OnceValue(func() bool {
	l, err := loop.NewBackend(loop.BackendUring)
	if err != nil {
		return false
	}
	defer l.Close()
	return l.Backend() == loop.BackendUring
})
