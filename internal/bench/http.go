package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/cogen-go/cogen/examples/echo/handler"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// HTTPModels are the HTTP hello servers RunHTTP knows: "stackful", one
// stackful coroutine per connection parsing requests with
// http.ReadRequest over Co.Read and writing a preformatted response with
// Co.Write, and "net/http", Go's server.
var HTTPModels = []string{"stackful", "net/http"}

// helloBody is what every hello server answers.
const helloBody = "Hello, World!"

// HelloHandler is the net/http hello handler: a fixed body with its content
// type set (so that net/http does not sniff it).
func HelloHandler(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Type"] = []string{"text/plain; charset=utf-8"}
	io.WriteString(w, helloBody)
}

// coReader reads fd through a stackful coroutine: a read that would block
// suspends the coroutine on the loop.
type coReader struct {
	co *stackful.Co
	fd int
}

func (r coReader) Read(p []byte) (int, error) {
	n, err := r.co.Read(r.fd, p)
	if n == 0 && err == nil {
		return 0, io.EOF
	}
	return n, err
}

// StackfulHello serves HTTP/1.1 hello requests on the connection fd until
// the client closes it, in the coroutine co: requests are parsed by
// http.ReadRequest over the coroutine's reads; each response carries the
// headers net/http would send (Content-Length, Content-Type, Date). It
// closes fd and returns nil at end of file.
func StackfulHello(co *stackful.Co, fd int) error {
	defer co.Close(fd)
	br := bufio.NewReaderSize(coReader{co, fd}, 4096)
	resp := make([]byte, 0, 256)
	for {
		req, err := http.ReadRequest(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return err
		}
		resp = append(resp[:0], "HTTP/1.1 200 OK\r\nContent-Length: "...)
		resp = strconv.AppendInt(resp, int64(len(helloBody)), 10)
		resp = append(resp, "\r\nContent-Type: text/plain; charset=utf-8\r\nDate: "...)
		resp = time.Now().UTC().AppendFormat(resp, http.TimeFormat)
		resp = append(resp, "\r\n\r\n"+helloBody...)
		if _, err := co.Write(fd, resp); err != nil {
			return err
		}
		if req.Close {
			return nil
		}
	}
}

// RunHTTP serves one echoload HTTP run (cfg.Addr and cfg.HTTP are filled
// in) with a hello server of the model, shuts the server down, and returns
// what the load client measured.
func RunHTTP(model string, cfg echoload.Config) (LoadResult, error) {
	cfg.HTTP = true
	switch model {
	case "stackful":
		l, err := loop.New()
		if err != nil {
			return LoadResult{}, err
		}
		defer l.Close()
		lfd, addr, err := echoload.ListenFD()
		if err != nil {
			return LoadResult{}, err
		}
		env := stackful.NewEnvOn(l)
		s := handler.ServeStackful(env, lfd, StackfulHello)
		cfg.Addr = addr
		res, err := serveLoad(cfg, func(limit time.Duration) error {
			err := s.Shutdown(limit)
			if cerr := env.Close(); cerr != nil && err == nil {
				err = cerr
			}
			return err
		}, func(ld *echoload.Load) error { return serveUntil(l, ld) })
		return LoadResult{res, int64(l.Stats().Polls)}, err
	case "net/http":
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return LoadResult{}, err
		}
		srv := &http.Server{Handler: http.HandlerFunc(HelloHandler)}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()
		cfg.Addr = ln.Addr().String()
		res, err := serveLoad(cfg, func(time.Duration) error {
			err := srv.Close()
			if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
				err = serr
			}
			return err
		}, func(ld *echoload.Load) error { <-ld.Done(); return nil })
		return LoadResult{res, -1}, err
	}
	return LoadResult{}, fmt.Errorf("bench: unknown HTTP model %q", model)
}

// HTTP serves one echoload HTTP run of b.N keep-alive GETs over 100
// connections with the model and reports what Echo reports.
func HTTP(b *testing.B, model string) {
	res, err := RunHTTP(model, echoload.Config{Conns: EchoConns, Requests: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	reportLoad(b, res)
}
