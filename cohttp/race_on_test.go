//go:build race

package cohttp_test

const raceEnabled = true
