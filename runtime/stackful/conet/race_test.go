//go:build race

package conet

const raceEnabled = true
