package stackless

// A Codec carries values of a type T that the generated encoding of
// durable frames cannot carry on its own: a type of another package with
// unexported fields (regexp.Regexp, big.Int), an interface (error), a func.
// It is a pair of functions, like encoding.BinaryMarshaler and
// BinaryUnmarshaler written outside the type.
//
// cogen finds codecs by their type, with no directive: a package-level
// variable of type Codec[T] declared in the package being generated, or an
// exported one in a package it imports, serves every value of exactly T
// that a durable frame holds (gen's doc, "Durable functions", tells the
// rules of precedence and ambiguity). T must not be a pointer type: a *T
// keeps going through the snapshot's pointer table, so that two pointers to
// one value restore to one value, and the codec carries the value once.
// A codec takes precedence over T's own MarshalBinary and over the
// field-by-field encoding.
//
// The contract:
//
//   - Marshal returns the bytes of *x. It runs in [Snapshot], on the task's
//     loop goroutine, once or twice per value (Snapshot walks the values
//     twice when pointers or slices point into other values), and must not
//     change *x. An error fails the Snapshot
//     with an error naming the frame and T; a panic reaches the caller of
//     Snapshot, as from any code of the program.
//   - Unmarshal sets *x from bytes Marshal returned, entirely: it must not
//     rely on what *x held before (the zero value, in generated code), and
//     whatever it leaves unset is not restored. As with
//     encoding.BinaryUnmarshaler, b belongs to the caller of [Restore]:
//     Unmarshal must copy what it keeps of it. An error, or a panic (which
//     is recovered: Restore never panics on bad input), fails the Restore
//     with an error naming the frame and T.
//
// In the snapshot the bytes are written length first (a varint) and are
// covered by its checksum. Their format is the codec's: the frame's
// fingerprint records which codec variable serves T, not what Marshal
// writes, so a codec whose format changes must read its old bytes too (a
// leading version byte is the usual way) or be declared under a new name,
// which makes Restore refuse the old snapshots with [ErrChangedCode].
type Codec[T any] struct {
	Marshal   func(x *T) ([]byte, error)
	Unmarshal func(b []byte, x *T) error
}
