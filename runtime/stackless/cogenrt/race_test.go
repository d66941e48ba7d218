//go:build race

package cogenrt

const raceEnabled = true
