//go:build race

package main

// raceEnabled reports a -race build: timing bounds do not apply to it.
const raceEnabled = true
