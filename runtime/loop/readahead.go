package loop

// readAheadSize is how many bytes TryReadStream reads beyond the caller's
// buffer: enough to tell a read that emptied the stream from one that
// filled the buffer exactly, and small, since what it reads is kept on the
// fd.
const readAheadSize = 64

// readAhead holds the bytes of a stream read beyond a caller's buffer, until
// the next read takes them. It is allocated for an fd the first time a read
// leaves some, and kept while the fd is registered.
type readAhead struct {
	buf      [readAheadSize]byte
	off, end uint8 // buf[off:end] is unread
}

// take moves the unread bytes into p and returns their count.
func (a *readAhead) take(p []byte) int {
	n := copy(p, a.buf[a.off:a.end])
	a.off += uint8(n)
	return n
}

// Buffered returns how many bytes of f's stream the loop has read ahead and
// holds for the next read (TryRead, TryReadStream): 0 unless a read asked
// for fewer bytes than had arrived. While it is not 0 a wait for
// readability wakes at once and [Loop.TryPoll] reports f readable. Reading
// f with a system call of one's own would skip them; [FD.TakeBuffered]
// takes them first.
func (f *FD) Buffered() int {
	if f.cx != nil {
		return f.loop.comp.x(f.cx).buffered()
	}
	if f.ahead == nil {
		return 0
	}
	return int(f.ahead.end - f.ahead.off)
}

// TakeBuffered moves up to len(p) of the bytes f holds (see [FD.Buffered])
// into p and returns their count; with peek set it copies them and keeps
// them.
func (f *FD) TakeBuffered(p []byte, peek bool) int {
	if f.cx != nil {
		if peek {
			return copy(p, f.loop.comp.x(f.cx).rdata)
		}
		return f.loop.compTake(f.cx, p)
	}
	if f.ahead == nil {
		return 0
	}
	if peek {
		return copy(p, f.ahead.buf[f.ahead.off:f.ahead.end])
	}
	return f.ahead.take(p)
}
