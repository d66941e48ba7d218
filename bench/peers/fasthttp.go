package main

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cogen-go/cogen/internal/bench"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/internal/hello"
)

// helloHandler answers what every hello server of cobench answers: 200,
// hello.Body, Content-Type text/plain; charset=utf-8, Content-Length and
// Date (fasthttp adds the last two itself; its Server header is off).
func helloHandler(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.WriteString(hello.Body)
}

// waitingHelloHandler is helloHandler after a time.Sleep of
// hello.DefaultWait (fasthttp runs each connection's handler in a worker
// goroutine: the sleep holds that goroutine only).
func waitingHelloHandler(ctx *fasthttp.RequestCtx) {
	time.Sleep(hello.DefaultWait)
	helloHandler(ctx)
}

// StartHTTP starts fasthttp's server with the hello handler on a free port
// of 127.0.0.1 and returns its address and the function that stops it.
func StartHTTP(model string) (addr string, stop func() error, err error) {
	return startHTTP(model, helloHandler)
}

func startHTTP(model string, h fasthttp.RequestHandler) (addr string, stop func() error, err error) {
	if model != "fasthttp" {
		return "", nil, fmt.Errorf("unknown HTTP model %q", model)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &fasthttp.Server{Handler: h, NoDefaultServerHeader: true}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	return ln.Addr().String(), func() error {
		err := srv.Shutdown()
		if serr := <-served; serr != nil && !errors.Is(serr, net.ErrClosed) && err == nil {
			err = serr
		}
		return err
	}, nil
}

// RunHTTP serves one HTTP load window (cfg.Addr and cfg.HTTP are filled
// in) with the hello server of the model and returns what the load client
// measured; LoopPolls is -1.
func RunHTTP(model string, cfg echoload.Config) (bench.LoadResult, error) {
	return runHTTP(model, cfg, helloHandler)
}

// RunHTTPWait is RunHTTP with a handler that waits hello.DefaultWait
// before answering (cobench's "http-wait" rows).
func RunHTTPWait(model string, cfg echoload.Config) (bench.LoadResult, error) {
	return runHTTP(model, cfg, waitingHelloHandler)
}

func runHTTP(model string, cfg echoload.Config, h fasthttp.RequestHandler) (bench.LoadResult, error) {
	addr, stop, err := startHTTP(model, h)
	if err != nil {
		return bench.LoadResult{}, err
	}
	cfg.Addr, cfg.HTTP = addr, true
	res, err := bench.ServeLoad(cfg, func(time.Duration) error { return stop() }, nil)
	return bench.LoadResult{Result: res, LoopPolls: -1}, err
}
