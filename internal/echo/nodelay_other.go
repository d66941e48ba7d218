//go:build !unix

package echo

// setNoDelay does nothing: the loop accepts no socket descriptors here.
func setNoDelay(fd int) {}
