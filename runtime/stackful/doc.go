// Package stackful is libco's coroutine semantics in Go, on the cogen event
// loop.
package stackful
