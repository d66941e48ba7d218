package echoload

import (
	"errors"
	"time"

	"github.com/cogen-go/cogen/internal/wrk"
)

// startWrk is Start for a run with cfg.Wrk: wrk, TechEmpower's load
// generator, GETs cfg.Path on cfg.Conns keep-alive connections (one thread
// per CPU) for cfg.Duration rounded to whole seconds. The server's figures
// are taken when wrk starts and when it has exited (wrk has no gate like
// this package's client): its window includes connection setup and the
// requests in flight when wrk stops, which wrk does not count. Requests
// and Elapsed are wrk's.
func startWrk(cfg Config) (*Load, error) {
	if !cfg.HTTP {
		return nil, errors.New("echoload: wrk runs HTTP loads only")
	}
	if cfg.Requests > 0 {
		return nil, errors.New("echoload: wrk runs for a duration, not a request count")
	}
	ld := &Load{cfg: cfg, done: make(chan struct{})}
	go func() {
		defer close(ld.done)
		io0 := processIO()
		r, err := wrk.Run(wrk.Config{URL: "http://" + cfg.Addr + cfg.Path, Conns: cfg.Conns, Duration: cfg.Duration, Timeout: 2 * time.Second}, processCPU)
		io1 := processIO()
		if err != nil {
			ld.err = err
			return
		}
		ld.res = Result{Conns: cfg.Conns, Requests: r.Requests, Elapsed: r.Elapsed, ServerCPU: r.ServerCPU,
			ServerReads: -1, ServerWrites: -1, Wrk: &r}
		if io0.ok && io1.ok {
			ld.res.ServerReads, ld.res.ServerWrites = io1.reads-io0.reads, io1.writes-io0.writes
		}
	}()
	return ld, nil
}
