//go:build !unix

package handler

// setNoDelay does nothing: the loop accepts no socket descriptors here.
func setNoDelay(fd int) {}
