//go:build !unix

package loop

// watch is the portable poller's registration of an fd; Go's poller does
// not take descriptors as ints here, so there is none.
type watch struct{ fd int }

func (p *netpoller) watch(fd int) (*watch, error) { return nil, ErrNotSupported }

func (w *watch) stop() error { return nil }
