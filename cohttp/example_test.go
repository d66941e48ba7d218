package cohttp_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cogen-go/cogen/cohttp"
)

// A server loop on RequestReader: answer each request, and a refused one
// with net/http's error response.
func ExampleRequestReader() {
	in := strings.NewReader("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/7.0\r\nHost: x\r\n\r\n")
	rr := cohttp.NewRequestReader(in, cohttp.Limits{})
	for {
		req, err := rr.Next()
		var e *cohttp.Error
		switch {
		case errors.As(err, &e):
			fmt.Printf("refused: %q\n", strings.SplitN(string(e.Response()), "\r\n", 2)[0])
			return
		case err == io.EOF:
			return
		case err != nil:
			fmt.Println(err)
			return
		}
		fmt.Println("serve", req.URL.Path)
	}
	// Output:
	// serve /a
	// refused: "HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version"
}
