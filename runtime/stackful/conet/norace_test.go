//go:build !race

package conet

const raceEnabled = false
