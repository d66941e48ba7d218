package main

import (
	"errors"
	"net"
	"time"

	"github.com/valyala/fasthttp"

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

// startFasthttp starts fasthttp's server with the handler h on a free
// port of 127.0.0.1 and returns its address and the function that stops it.
func startFasthttp(h fasthttp.RequestHandler) (addr string, stop func() error, err error) {
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
