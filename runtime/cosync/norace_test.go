//go:build !race

package cosync_test

const raceEnabled = false
