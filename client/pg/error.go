package pg

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
)

// An Error is an ErrorResponse of the server: Code is the SQLSTATE
// ("23505" for a unique violation, "57014" for a cancelled statement; see
// PostgreSQL's errcodes appendix).
type Error struct {
	Severity string // ERROR, FATAL or PANIC (not localized)
	Code     string
	Message  string
	Detail   string
	Hint     string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("pg: %s: %s (SQLSTATE %s)", e.Severity, e.Message, e.Code)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Fatal reports whether the server ended the session with the error.
func (e *Error) Fatal() bool { return e.Severity == "FATAL" || e.Severity == "PANIC" }

func newError(m *pgproto3.ErrorResponse) *Error {
	sev := m.SeverityUnlocalized
	if sev == "" {
		sev = m.Severity
	}
	return &Error{Severity: sev, Code: m.Code, Message: m.Message, Detail: m.Detail, Hint: m.Hint}
}

// ErrAborted is wrapped by the error of a query that the server did not
// run because an earlier query of the same pipeline (the queries sent
// with one Send) failed; errors.As finds that query's *Error.
var ErrAborted = errors.New("pg: not run: an earlier query of the pipeline failed")

type abortedError struct{ cause *Error }

func (e *abortedError) Error() string   { return ErrAborted.Error() + ": " + e.cause.Error() }
func (e *abortedError) Unwrap() []error { return []error{ErrAborted, e.cause} }

// Code returns the SQLSTATE of err if it is or wraps an [*Error], else "".
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
