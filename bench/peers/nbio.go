package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/lesismal/nbio"
	"github.com/lesismal/nbio/logging"
	"github.com/lesismal/nbio/nbhttp"

	"github.com/cogen-go/cogen/internal/hello"
)

func init() {
	// nbio logs every engine start and stop at the Info level on standard
	// output, where a child's result goes; warnings and errors stay (on
	// standard error, see quietLogger).
	logging.SetLogger(quietLogger{})
}

// quietLogger is nbio's logger: its warnings and errors go to standard
// error.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any)          {}
func (quietLogger) Info(string, ...any)           {}
func (quietLogger) Warn(format string, v ...any)  { logStderr("nbio: "+format, v...) }
func (quietLogger) Error(format string, v ...any) { logStderr("nbio: "+format, v...) }

// listenerAddr is a Listen function for nbio's engines that records the
// address of the listener it creates.
type listenerAddr struct {
	mu   sync.Mutex
	addr string
}

func (l *listenerAddr) listen(network, addr string) (net.Listener, error) {
	ln, err := net.Listen(network, addr)
	if err == nil {
		l.mu.Lock()
		l.addr = ln.Addr().String()
		l.mu.Unlock()
	}
	return ln, err
}

func (l *listenerAddr) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.addr
}

// nbioPollers is the poller count of the model ("…/1": one; "…/N": one
// per CPU).
func nbioPollers(model, one, n string) (int, error) {
	switch model {
	case one:
		return 1, nil
	case n:
		return runtime.NumCPU(), nil
	}
	return 0, fmt.Errorf("unknown model %q", model)
}

// startNbio starts nbio's echo server of the model ("nbio/1": one poller
// goroutine; "nbio/N": one per CPU) on a free port of 127.0.0.1: its
// OnData handler writes back what arrived, on the poller's goroutine
// (nbio's default, level-triggered, reading in the poller). nbio accepts
// on a listener goroutine of its own.
func startNbio(model string) (addr string, stop func() error, err error) {
	pollers, err := nbioPollers(model, "nbio/1", "nbio/N")
	if err != nil {
		return "", nil, err
	}
	var la listenerAddr
	eng := nbio.NewEngine(nbio.Config{Network: "tcp4", Addrs: []string{"127.0.0.1:0"}, NPoller: pollers, Listen: la.listen})
	eng.OnData(func(c *nbio.Conn, data []byte) { c.Write(data) })
	if err := eng.Start(); err != nil {
		return "", nil, fmt.Errorf("nbio: %v", err)
	}
	return la.get(), func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return eng.Shutdown(ctx)
	}, nil
}

// nbhttpHello is the hello handler of nbhttp: hello.Body with its
// Content-Type and Content-Length set (without a Content-Length nbhttp
// answers chunked); nbhttp adds Date.
func nbhttpHello(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Content-Type"] = contentType
	h["Content-Length"] = contentLength
	io.WriteString(w, hello.Body)
}

var (
	contentType   = []string{"text/plain; charset=utf-8"}
	contentLength = []string{strconv.Itoa(len(hello.Body))}
)

// nbhttpWaitingHello is nbhttpHello after a time.Sleep of
// hello.DefaultWait, on the goroutine of nbhttp's task pool that runs the
// handler.
func nbhttpWaitingHello(w http.ResponseWriter, r *http.Request) {
	time.Sleep(hello.DefaultWait)
	nbhttpHello(w, r)
}

// startNbhttp starts nbhttp's server ("nbhttp": one poller goroutine,
// nbhttp's own default below 8 cores, non-blocking IO mode; handlers run
// on its task pool, its default) with the handler h on a free port of
// 127.0.0.1.
func startNbhttp(model string, h http.HandlerFunc) (addr string, stop func() error, err error) {
	if model != "nbhttp" {
		return "", nil, fmt.Errorf("unknown HTTP model %q", model)
	}
	var la listenerAddr
	eng := nbhttp.NewEngine(nbhttp.Config{Network: "tcp4", Addrs: []string{"127.0.0.1:0"}, NPoller: 1, Handler: h, Listen: la.listen})
	if err := eng.Start(); err != nil {
		return "", nil, fmt.Errorf("nbhttp: %v", err)
	}
	return la.get(), func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return eng.Shutdown(ctx)
	}, nil
}
