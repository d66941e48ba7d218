//go:build cogen_coroswitch && !race

package stackful

func raceRelease(*coSwitch) {}

func raceAcquire(*coSwitch) {}
