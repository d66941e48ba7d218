//go:build linux

package cohttp_test

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/loop"
)

// A stackless HTTP server on one loop: a plain handler, a client on
// another goroutine, and a graceful shutdown.
func ExampleServeStackless() {
	l, _ := loop.New()
	defer l.Close()
	lfd, addr, _ := loop.ListenTCP("tcp4", "127.0.0.1:0", false)
	s := cohttp.ServeStackless(l, lfd, func(w *cohttp.ResponseWriter, r *cohttp.Request) {
		w.AddHeader("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "Hello, %s!", r.Path()[1:])
	}, cohttp.Limits{})

	answered := false
	go func() {
		resp, err := http.Get("http://" + addr.String() + "/coroutine")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			fmt.Println(resp.StatusCode, string(body))
		}
		l.Submit(func() { answered = true }) // the loop's state is the loop's
	}()
	l.Run(func() bool { return answered })
	fmt.Println(s.Shutdown(time.Second))
	// Output:
	// 200 Hello, coroutine!
	// <nil>
}
