//go:build unix

package bench

import (
	"net/http"
	"testing"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/internal/httpdiff"
)

// TestHTTPDifferential: both stackful hello servers answer every byte
// stream of the suite as net/http's server answers it with HelloHandler.
func TestHTTPDifferential(t *testing.T) {
	oracle := httpdiff.Oracle(t, http.HandlerFunc(HelloHandler))
	for _, model := range []string{"stackful/conet", "stackful/co"} {
		t.Run(model, func(t *testing.T) {
			addr, stop, err := StartHTTP(model, cohttp.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := stop(); err != nil {
					t.Error(err)
				}
			}()
			httpdiff.Run(t, oracle, addr, httpdiff.Cases(), httpdiff.ReadRequestDiffers)
		})
	}
}

// TestHTTPHostile: the hostile-client tests against both stackful hello
// servers.
func TestHTTPHostile(t *testing.T) {
	for _, model := range []string{"stackful/conet", "stackful/co"} {
		t.Run(model, func(t *testing.T) {
			httpdiff.Hostile(t, func(t *testing.T, lim cohttp.Limits) string {
				addr, stop, err := StartHTTP(model, lim)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if err := stop(); err != nil {
						t.Error(err)
					}
				})
				return addr
			})
		})
	}
}

// TestStartHTTPCohttp: StartHTTP's cohttp servers answer and stop without
// leaving descriptors.
func TestStartHTTPCohttp(t *testing.T) {
	for _, model := range []string{"stackful/cohttp", "stackless/cohttp"} {
		t.Run(model, func(t *testing.T) {
			defer checkNoLeaks(t)()
			addr, stop, err := StartHTTP(model, cohttp.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			o, err := httpdiff.Exchange(addr, httpdiff.Case{Send: []string{"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"}})
			if err != nil || o.String() != "200 200(close) closed" {
				t.Errorf("%v %v", o, err)
			}
			if err := stop(); err != nil {
				t.Error(err)
			}
		})
	}
}
