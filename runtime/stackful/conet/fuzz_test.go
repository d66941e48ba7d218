//go:build linux

package conet

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
)

// conetEnd is a conet connection whose every Read and Write runs under a
// deadline timeout after it starts, as the stream model wants.
type conetEnd struct {
	c       *Conn
	timeout *time.Duration
}

func (e conetEnd) Read(p []byte) (int, error) {
	e.c.SetReadDeadline(time.Now().Add(*e.timeout))
	return e.c.Read(p)
}

func (e conetEnd) Write(p []byte) (int, error) {
	e.c.SetWriteDeadline(time.Now().Add(*e.timeout))
	return e.c.Write(p)
}

func (e conetEnd) SetTimeout(d time.Duration) error { *e.timeout = d; return nil }
func (e conetEnd) CloseWrite() error                { return e.c.CloseWrite() }
func (e conetEnd) Close() error                     { return e.c.Close() }

func runConetScript(t testing.TB, script []byte) {
	e := newEnv(t)
	client, server := pair(t, e)
	var ta, tb time.Duration
	err := cotest.StreamOps{Script: script}.Run(t, e, conetEnd{client, &ta}, conetEnd{server, &tb})
	if err != nil {
		t.Fatalf("script %x:\n%v", script, err)
	}
}

// FuzzConetStreamOps runs random interleavings of reads, writes, deadlines,
// CloseWrite and Close on both ends of a conet TCP connection, each end in
// its own coroutine, against the model of two byte streams.
func FuzzConetStreamOps(f *testing.F) {
	f.Add([]byte{0, 10, 3, 5, 1, 10, 2, 0, 8, 0})
	f.Add([]byte{2, 200, 3, 3, 0, 255, 1, 255, 1, 255, 6, 0, 9, 0})
	f.Add([]byte{3, 4, 0, 1, 9, 0, 1, 9})
	f.Add([]byte{8, 0, 0, 1, 1, 1, 9, 0})
	f.Fuzz(func(t *testing.T, script []byte) { runConetScript(t, script) })
}

// TestConetStreamOpsRandom runs a fixed set of random scripts, so plain
// `go test` covers what the fuzzer explores.
func TestConetStreamOpsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 100
	if testing.Short() {
		n = 20
	}
	for range n {
		script := make([]byte, 2*(1+rng.IntN(40)))
		for i := range script {
			script[i] = byte(rng.Uint32())
		}
		runConetScript(t, script)
	}
}
