// Package enc exports codecs (stackless.Codec) of types of other packages
// for the durable test corpus, which imports it. Its name is, on purpose,
// that of the encoder parameter of the generated encoding methods: the
// generated file must import it under another name (or rename its local),
// which the corpus checks by compiling.
package enc

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"

	"github.com/cogen-go/cogen/runtime/stackless"
)

// BigInt carries a big.Int (unexported fields, no MarshalBinary) as its
// gob encoding, sign included.
var BigInt = stackless.Codec[big.Int]{
	Marshal:   func(x *big.Int) ([]byte, error) { return x.GobEncode() },
	Unmarshal: func(b []byte, x *big.Int) error { return x.GobDecode(b) },
}

// Regexp carries a regexp.Regexp as its source text, compiled again.
var Regexp = stackless.Codec[regexp.Regexp]{
	Marshal: func(x *regexp.Regexp) ([]byte, error) { return []byte(x.String()), nil },
	Unmarshal: func(b []byte, x *regexp.Regexp) error {
		re, err := regexp.Compile(string(b))
		if err != nil {
			return err
		}
		*x = *re
		return nil
	},
}

// Error carries an error as its text after a byte 1, nil as no bytes.
// The corpus declares its own codec of error, which serves it there
// instead of this one.
var Error = stackless.Codec[error]{
	Marshal: func(x *error) ([]byte, error) {
		if *x == nil {
			return nil, nil
		}
		return append([]byte{1}, (*x).Error()...), nil
	},
	Unmarshal: func(b []byte, x *error) error {
		switch {
		case len(b) == 0:
			*x = nil
		case b[0] == 1:
			*x = errors.New(string(b[1:]))
		default:
			return fmt.Errorf("bad error tag %d", b[0])
		}
		return nil
	},
}
