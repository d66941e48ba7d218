package durable

import (
	"math/big"
	"net/url"
	"regexp"

	"codeclib"
	_ "codeclib2"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// regexpCodec is local: it serves regexp.Regexp before codeclib.Regexp.
var regexpCodec = stackless.Codec[regexp.Regexp]{}

// A codec of a func type makes it encodable (by a registry of names, say).
type handler func(int) int

var handlerCodec stackless.Codec[handler]

var ptrCodec stackless.Codec[*big.Int] // want `codec ptrCodec serves a pointer type \(\*big.Int\): declare a stackless.Codec of the type it points to`

// Codecs: a local codec (regexp.Regexp behind a pointer, in a map), an
// imported one (big.Int by value and behind pointers, in a slice), a
// func type with a codec: all accepted.
//
//co:stackless durable
func withCodecs(co *stackful.Co, re map[string]*regexp.Regexp, n big.Int, ns []*big.Int, h handler) int {
	co.Gosched()
	return h(len(re) + n.Sign() + len(ns))
}

// codeclib and codeclib2 both serve url.Userinfo.
//
//co:stackless durable
func ambiguous(co *stackful.Co, u []*url.Userinfo) int { // want `durable function ambiguous: u \(\[\]\*net/url.Userinfo\) lives in the frame, and two codecs serve url.Userinfo, codeclib.Userinfo and codeclib2.Userinfo \(declare a stackless.Codec\[url.Userinfo\] in this package to choose\)`
	co.Gosched()
	return len(u)
}

// A type with no codec still says how to get one.
//
//co:stackless durable
func noCodec(co *stackful.Co, rat *big.Rat) string { // want `durable function noCodec: rat \(\*math/big.Rat\) lives in the frame, and math/big.Rat has unexported fields of another package \(field a\) and does not implement encoding.BinaryMarshaler and BinaryUnmarshaler: declare a package-level variable of type stackless.Codec\[big.Rat\] to carry it`
	co.Gosched()
	return rat.String()
}

// An exported type of another package with a field of an unexported type
// cannot be named by the encoder.
//
//co:stackless durable
func unnamed(co *stackful.Co, o codeclib.Outer) int { // want `durable function unnamed: o \(codeclib.Outer\) lives in the frame, and codeclib.inner is not exported, and the encoder cannot name it`
	co.Gosched()
	return o.In.X
}
