package echo

//go:generate go tool cogen

import "github.com/cogen-go/cogen/runtime/stackful"

// MsgSize is the most Echo reads before writing back.
const MsgSize = 64

// Echo serves one connection: it reads up to MsgSize bytes, writes them
// back, and repeats until end of file or an error; then it closes fd. It
// returns nil at end of file.
//
//co:stackless
func Echo(co *stackful.Co, fd int) error {
	var buf [MsgSize]byte
	for {
		n, err := co.Read(fd, buf[:])
		if err != nil {
			co.Close(fd)
			return err
		}
		if n == 0 {
			return co.Close(fd)
		}
		if _, err := co.Write(fd, buf[:n]); err != nil {
			co.Close(fd)
			return err
		}
	}
}
