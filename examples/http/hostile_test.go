//go:build linux

package main

import (
	"testing"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/internal/httpdiff"
)

// TestHostile: oversized heads, slowloris, idle connections and a flood
// beyond the connection cap, against the example server (one env, so that
// the cap is the server's).
func TestHostile(t *testing.T) {
	httpdiff.Hostile(t, func(t *testing.T, lim cohttp.Limits) string {
		s, err := start("127.0.0.1:0", 1, testHandler(), lim)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.shutdown(0) })
		return s.addr
	})
}
