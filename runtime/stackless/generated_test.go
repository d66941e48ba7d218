package stackless

import "github.com/cogen-go/cogen/runtime/stackless/cogenrt"

// The hand-written frames of this package's tests stand for generated
// ones, which name these from package cogenrt.
type (
	Defers       = cogenrt.Defers
	Encoder      = cogenrt.Encoder
	Decoder      = cogenrt.Decoder
	DurableFrame = cogenrt.DurableFrame
	ResumePoint  = cogenrt.ResumePoint
)

const (
	ResumeEntry   = cogenrt.ResumeEntry
	ResumeCall    = cogenrt.ResumeCall
	ResumeGosched = cogenrt.ResumeGosched
	ResumeYield   = cogenrt.ResumeYield
	ResumeSleep   = cogenrt.ResumeSleep
)

var (
	RegisterDurable = cogenrt.RegisterDurable
)
