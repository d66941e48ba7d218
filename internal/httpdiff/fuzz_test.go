package httpdiff

import "testing"

// TestStream: bytes pick pieces, the top bit splits writes, odd lengths
// half-close.
func TestStream(t *testing.T) {
	c := Stream([]byte{0, 0x80, 1})
	if len(c.Send) != 2 || c.Send[0] != Pieces[0] || c.Send[1] != Pieces[0]+Pieces[1] || !c.HalfClose {
		t.Fatalf("%+v", c)
	}
	if c := Stream(nil); len(c.Send) != 0 || c.HalfClose {
		t.Fatalf("%+v", c)
	}
}
