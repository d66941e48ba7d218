package stackless

import "github.com/cogen-go/cogen/runtime/loop"

// FramePtr is the pointer type of a frame type F: what SpawnFrame returns.
type FramePtr[F any] interface {
	*F
	Frame
}

// SpawnFrame is [Spawn] of a copy of frame, allocated together with its
// task: one allocation instead of two, and one object for the garbage
// collector. It returns the task and its frame (read the results from it
// once the task is done):
//
//	t, f := stackless.SpawnFrame(l, *handler.NewEchoFrame(fd))
//
// The frame and the task live and die together; a frame spawned this way
// must not be spawned again or called from another frame.
func SpawnFrame[F any, P FramePtr[F]](l *loop.Loop, frame F) (*Task, P) {
	b := &struct {
		t Task
		f F
	}{f: frame}
	p := P(&b.f)
	b.t.top = p
	b.t.w.Init(l, &b.t)
	b.t.w.Yield()
	return &b.t, p
}
