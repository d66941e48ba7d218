//go:build linux

package main

import (
	"testing"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/internal/httpdiff"
)

// TestDifferential: the example server answers every byte stream of the
// suite as net/http's server answers it with the same handler.
func TestDifferential(t *testing.T) {
	s, err := start("127.0.0.1:0", 1, testHandler(), cohttp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	httpdiff.Run(t, httpdiff.Oracle(t, testHandler()), s.addr, httpdiff.Cases(), httpdiff.ReadRequestDiffers)
}

// FuzzDifferential sends random streams built from the suite's pieces to
// net/http's server and to the example server (go test -fuzz
// FuzzDifferential ./examples/http); without -fuzz the seeds run.
func FuzzDifferential(f *testing.F) {
	for _, seed := range [][]byte{{0, 1, 2}, {5, 0x80, 19, 0}, {6, 7, 0x88, 0}, {20, 21, 0}, {9, 0x80 | 9}} {
		f.Add(seed)
	}
	s, err := start("127.0.0.1:0", 1, testHandler(), cohttp.Limits{})
	if err != nil {
		f.Fatal(err)
	}
	defer s.stop()
	oracle := httpdiff.Oracle(f, testHandler())
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64 {
			t.Skip("long streams add nothing the pieces do not")
		}
		c := httpdiff.Stream(data)
		httpdiff.Run(t, oracle, s.addr, []httpdiff.Case{c}, nil)
	})
}
