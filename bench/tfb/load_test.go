package tfb

import (
	"os"
	"testing"
)

// TestProcessIO: ProcessIO counts this process's write(2) calls.
func TestProcessIO(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n0, err := ProcessIO(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		f.Write([]byte("x"))
	}
	n1, err := ProcessIO(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if n1-n0 < 10 {
		t.Errorf("ProcessIO rose by %d over 10 writes", n1-n0)
	}
	if _, err := ProcessIO(-1); err == nil {
		t.Error("ProcessIO(-1): no error")
	}
}
