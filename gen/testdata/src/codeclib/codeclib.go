// Package codeclib exports codecs of foreign types for the durable
// analyzer tests.
package codeclib

import (
	"math/big"
	"net/url"
	"regexp"

	"github.com/cogen-go/cogen/runtime/stackless"
)

// Big serves big.Int.
var Big stackless.Codec[big.Int]

// Regexp serves regexp.Regexp; package durable declares its own, which wins.
var Regexp stackless.Codec[regexp.Regexp]

// Userinfo serves url.Userinfo, as codeclib2.Userinfo does.
var Userinfo stackless.Codec[url.Userinfo]

// unexported is not visible to importers.
var unexported stackless.Codec[url.URL]

// Outer is exported with an exported field of an unexported type.
type Outer struct{ In inner }

type inner struct{ X int }
