//go:build linux

package cohttp_test

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// lookup is a handler that waits: written once, it runs on a stackful
// coroutine, and cogen generated its stackless frame (newLookupFrame).
//
//co:stackless
func lookup(co *stackful.Co, w *cohttp.ResponseWriter, r *cohttp.Request) {
	co.Sleep(10 * time.Millisecond) // a database round trip, say
	fmt.Fprintf(w, "found %s", r.Path()[len("/lookup/"):])
}

var lookupHandler = cohttp.Waiting(lookup, newLookupFrame)

// A router that hands the requests that wait to a WaitHandler, served by
// the stackless server (ServeStackful serves the same handlers).
func ExampleWaiting() {
	l, _ := loop.New()
	defer l.Close()
	lfd, addr, _ := loop.ListenTCP("tcp4", "127.0.0.1:0", false)
	s := cohttp.ServeStackless(l, lfd, func(w *cohttp.ResponseWriter, r *cohttp.Request) {
		if len(r.Path()) > len("/lookup/") && string(r.Path()[:len("/lookup/")]) == "/lookup/" {
			w.Wait(lookupHandler) // runs once this handler returns; the loop serves others meanwhile
			return
		}
		w.WriteString("home")
	}, cohttp.Limits{})

	answered := false
	go func() {
		for _, path := range []string{"/", "/lookup/42"} {
			resp, err := http.Get("http://" + addr.String() + path)
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				fmt.Println(resp.StatusCode, string(body))
			}
		}
		l.Submit(func() { answered = true })
	}()
	l.Run(func() bool { return answered })
	fmt.Println(s.Shutdown(time.Second))
	// Output:
	// 200 home
	// 200 found 42
	// <nil>
}
