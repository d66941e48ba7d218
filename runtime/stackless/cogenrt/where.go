package cogenrt

// A Locator is a frame that can say where it is; stackless.Task.Where
// asks each frame of a task. cogen generates Where for every frame from a
// table of its resume points.
type Locator interface {
	// Where returns the source position (import path/file.go:line) of the
	// frame's resume point: the waiting call it is suspended in, or the
	// call of the child frame it waits for.
	Where() string
}
