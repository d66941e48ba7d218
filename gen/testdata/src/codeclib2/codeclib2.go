// Package codeclib2 exports a second codec of url.Userinfo and of
// regexp.Regexp.
package codeclib2

import (
	"net/url"
	"regexp"

	"github.com/cogen-go/cogen/runtime/stackless"
)

var Userinfo stackless.Codec[url.Userinfo]

// Regexp is ambiguous with codeclib.Regexp, but package durable declares
// its own.
var Regexp stackless.Codec[regexp.Regexp]
