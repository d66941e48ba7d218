package good

import (
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// Echo has no diagnostics.
//
//co:stackless
func Echo(co *stackful.Co, fd int) error {
	var buf [64]byte
	for {
		n, err := co.Read(fd, buf[:])
		if err != nil || n == 0 {
			return err
		}
		if _, err := co.Write(fd, buf[:n]); err != nil {
			return err
		}
		co.Sleep(time.Millisecond)
	}
}

//co:stackless
func twoWaits(co *stackful.Co, c *stackful.Cond) bool {
	return co.Wait(c, time.Second) && co.Wait(c, -1)
}
