// Package extlib stands for a package with //co:stackless functions and
// the frames cogen generated for them (written by hand here: analysistest
// does not run cogen): extuser calls them as child frames.
package extlib

import "github.com/cogen-go/cogen/runtime/stackful"

// Marked's frame and constructor follow cogen's names and signatures.
func Marked(co *stackful.Co, n int) (int, error) { co.Yield(); return n, nil }

type MarkedFrame struct {
	r   int
	err error
}

func NewMarkedFrame(n int) *MarkedFrame     { return &MarkedFrame{} }
func (f *MarkedFrame) Step()                {}
func (f *MarkedFrame) Result() (int, error) { return f.r, f.err }

type Conn struct{}

// Send is a marked method: the receiver is the constructor's first
// parameter; without results, the frame has no Result.
func (c *Conn) Send(co *stackful.Co) { co.Yield() }

type ConnSendFrame struct{}

func NewConnSendFrame(c *Conn) *ConnSendFrame { return nil }
func (*ConnSendFrame) Step()                  {}

// Plain takes the handle but has no frame: not a marked function.
func Plain(co *stackful.Co) {}

// WrongCtor has a frame whose constructor does not take its parameters.
func WrongCtor(co *stackful.Co, n int) {}

type WrongCtorFrame struct{}

func NewWrongCtorFrame(s string) *WrongCtorFrame { return nil }
func (*WrongCtorFrame) Step()                    {}

// WrongResult's frame returns other results than the function.
func WrongResult(co *stackful.Co) int { return 0 }

type WrongResultFrame struct{}

func NewWrongResultFrame() *WrongResultFrame { return nil }
func (*WrongResultFrame) Step()              {}
func (*WrongResultFrame) Result() string     { return "" }
