//go:build race

package cosync_test

const raceEnabled = true
