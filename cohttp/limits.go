package cohttp

import (
	"log"
	"time"
)

// Defaults of the Limits fields left zero.
const (
	DefaultMaxHeaderBytes    = 1 << 20 // as net/http's DefaultMaxHeaderBytes
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultMaxBodyBytes      = 4 << 20
	DefaultBodyBudget        = 32 << 20
	DefaultMaxConns          = 10000
	DefaultSlowHandler       = 50 * time.Millisecond
)

// Limits bound what one client can make a server hold. A zero field takes
// its default; a negative one turns the limit off (MaxHeaderBytes excepted:
// a request head is always bounded). Every HTTP server of this module takes
// one Limits value; [Limits.Normalize] gives the values in force.
type Limits struct {
	// MaxHeaderBytes bounds the request line and header fields together. A
	// longer head is answered 431 Request Header Fields Too Large and the
	// connection closed; the server holds at most this much of it (plus
	// one read buffer), whatever the client sends. net/http's server allows
	// 4096 bytes of slack on top of its limit; so do these servers.
	MaxHeaderBytes int
	// ReadHeaderTimeout bounds the time from the first byte of a request to
	// the end of its head. A client that takes longer is disconnected
	// without an answer, as net/http does.
	ReadHeaderTimeout time.Duration
	// IdleTimeout bounds the wait for the first byte of the next request on
	// a keep-alive connection (and of the first one on a new connection).
	IdleTimeout time.Duration
	// ReadTimeout bounds the time from the first byte of a request (from
	// the accept for a connection's first) to the end of its body, as
	// net/http's. A client that takes longer is disconnected: without an
	// answer while the head is read, with 408 Request Timeout once the
	// body is (servers that read the body before calling the handler; on
	// the http.Handler servers the handler's read of the body fails).
	ReadTimeout time.Duration
	// WriteTimeout bounds the writing of the answers the server has ready
	// (one batch of pipelined answers at a time): a client that does not
	// read them within it is disconnected. Unlike net/http's it does not
	// count the time a handler spends before answering.
	WriteTimeout time.Duration
	// MaxBodyBytes bounds a request body: a handler reading past it gets an
	// error (*http.MaxBytesError for http.Handler servers) and the server
	// closes the connection after the response; servers that read the body
	// before calling the handler answer 413 Content Too Large.
	MaxBodyBytes int64
	// BodyBudget bounds the memory one server (one env or loop) holds in
	// request bodies being read, for the servers that read a body whole
	// before calling the handler (package cohttp's). It follows the bytes
	// received: a body's buffer grows beyond its connection's 4 KiB only as
	// bytes arrive (doubling), each growth taken from the budget, and a
	// dropped buffer stays charged until the collector has freed it; a
	// connection that finds the budget spent stops reading (the client
	// waits in TCP's flow control) until budget comes back, within its
	// ReadTimeout. A body larger than the whole budget is answered 413. So
	// clients that declare large bodies and send nothing hold none of it,
	// and clients that send part of one and stall hold at most the budget
	// between them, and only until ReadTimeout. The http.Handler servers
	// stream bodies to the handler and need no budget.
	BodyBudget int64
	// MaxConns bounds the connections one env (or loop) serves at once.
	// Beyond it the server stops accepting: new connections wait in the
	// kernel's listen backlog until one closes.
	MaxConns int
	// SlowHandler is how long a Handler of package cohttp's server may keep
	// its loop before the server's guard reports it on ErrorLog, once per
	// call, with its route and stack ([SlowHandlerReport]): well under the stall
	// watchdog's 1 s, since every connection of the loop waits meanwhile.
	SlowHandler time.Duration
	// ErrorLog receives what package cohttp's server reports: slow
	// handlers, and accept errors it retries (running out of descriptors);
	// nil: the log package's standard logger, as net/http's.
	ErrorLog *log.Logger
}

// DefaultLimits returns the limits in force when none is configured.
func DefaultLimits() Limits { return Limits{}.Normalize() }

// Normalize returns l with its zero fields set to their defaults and its
// negative ones set to -1 (no limit). MaxHeaderBytes is never off.
func (l Limits) Normalize() Limits {
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	l.ReadHeaderTimeout = durationOr(l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	l.IdleTimeout = durationOr(l.IdleTimeout, DefaultIdleTimeout)
	l.SlowHandler = durationOr(l.SlowHandler, DefaultSlowHandler)
	l.ReadTimeout = durationOr(l.ReadTimeout, DefaultReadTimeout)
	l.WriteTimeout = durationOr(l.WriteTimeout, DefaultWriteTimeout)
	switch {
	case l.MaxBodyBytes == 0:
		l.MaxBodyBytes = DefaultMaxBodyBytes
	case l.MaxBodyBytes < 0:
		l.MaxBodyBytes = -1
	}
	switch {
	case l.BodyBudget == 0:
		l.BodyBudget = DefaultBodyBudget
	case l.BodyBudget < 0:
		l.BodyBudget = -1
	}
	switch {
	case l.MaxConns == 0:
		l.MaxConns = DefaultMaxConns
	case l.MaxConns < 0:
		l.MaxConns = -1
	}
	return l
}

func durationOr(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return -1
	}
	return d
}

// headLimit is the number of bytes a server reads while looking for the end
// of a request head: MaxHeaderBytes plus net/http's slack of 4096.
func (l Limits) headLimit() int { return l.MaxHeaderBytes + 4096 }
