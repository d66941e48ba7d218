//go:build unix

package bench

import (
	"time"

	"github.com/cogen-go/cogen/internal/echoload"
)

// ServeLoad starts the load described by cfg (cfg.Addr is the server's),
// calls serve while it runs (nil: wait for its end on a server that runs
// on its own goroutines), shuts the server down with shutdown and returns
// what the load client measured: the body of every load row, for the
// servers of other modules (bench/peers) too.
func ServeLoad(cfg echoload.Config, shutdown func(time.Duration) error, serve func(*echoload.Load) error) (echoload.Result, error) {
	if serve == nil {
		serve = func(ld *echoload.Load) error { <-ld.Done(); return nil }
	}
	return serveLoad(cfg, shutdown, serve)
}
