//go:build race

package gen

// raceEnabled reports a -race build, whose instrumentation makes timing
// budgets meaningless.
const raceEnabled = true
