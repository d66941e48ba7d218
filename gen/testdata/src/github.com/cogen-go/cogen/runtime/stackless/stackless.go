// Package stackless is a stub of runtime/stackless for the analyzer tests:
// the analyzer recognises codecs by the package path and name of Codec.
package stackless

type Codec[T any] struct {
	Marshal   func(x *T) ([]byte, error)
	Unmarshal func(b []byte, x *T) error
}
