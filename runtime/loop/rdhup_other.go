//go:build unix && !linux

package loop

const pollRdHup = 0 // no such poll(2) bit here
