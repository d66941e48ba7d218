// Package other has a type the generated code of another package cannot
// name.
package other

type secret struct{ N int }

func New() *secret { return &secret{} }
