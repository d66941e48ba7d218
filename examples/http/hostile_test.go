//go:build linux

package main

import (
	"testing"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/internal/httpdiff"
)

// TestHostile: oversized heads, slowloris, idle connections and a flood
// beyond the connection cap, against the example's http.Handler server and
// its stackless cohttp server, each on one loop (so that the cap is the
// server's).
func TestHostile(t *testing.T) {
	for _, kind := range []string{"handler", "cohttp-stackless"} {
		t.Run(kind, func(t *testing.T) {
			httpdiff.Hostile(t, func(t *testing.T, lim cohttp.Limits) string {
				var s *server
				var err error
				if kind == "handler" {
					s, err = start("127.0.0.1:0", 1, testHandler(), lim)
				} else {
					s, err = startCohttp("127.0.0.1:0", 1, kind, lim)
				}
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.shutdown(0) })
				return s.addr
			})
		})
	}
}
