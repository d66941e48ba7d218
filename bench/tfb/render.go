package tfb

import (
	"slices"
	"strconv"
	"strings"
)

// Every server renders its answers with these functions, so that the
// comparison measures the servers and the database clients, not JSON or
// HTML libraries.

// HelloWorld is the body of the plaintext test and the message of the
// JSON test.
const HelloWorld = "Hello, World!"

// AppendMessage appends the JSON test's object.
func AppendMessage(b []byte) []byte {
	return append(b, `{"message":"Hello, World!"}`...)
}

// A World is one row of the World table.
type World struct{ ID, RandomNumber int64 }

// AppendWorld appends w as the JSON object {"id":..,"randomNumber":..}.
func AppendWorld(b []byte, w World) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, w.ID, 10)
	b = append(b, `,"randomNumber":`...)
	b = strconv.AppendInt(b, w.RandomNumber, 10)
	return append(b, '}')
}

// AppendWorlds appends ws as a JSON array.
func AppendWorlds(b []byte, ws []World) []byte {
	b = append(b, '[')
	for i, w := range ws {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendWorld(b, w)
	}
	return append(b, ']')
}

// A Fortune is one row of the Fortune table.
type Fortune struct {
	ID      int64
	Message string
}

// AppendFortunes adds the request-time fortune to fs, sorts them by
// message, and appends the fortunes test's HTML page with every message
// escaped.
func AppendFortunes(b []byte, fs []Fortune) []byte {
	fs = append(fs, Fortune{0, AddedFortune})
	slices.SortFunc(fs, func(a, b Fortune) int { return strings.Compare(a.Message, b.Message) })
	b = append(b, "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>"...)
	for _, f := range fs {
		b = append(b, "<tr><td>"...)
		b = strconv.AppendInt(b, f.ID, 10)
		b = append(b, "</td><td>"...)
		b = appendEscaped(b, f.Message)
		b = append(b, "</td></tr>"...)
	}
	return append(b, "</table></body></html>"...)
}

// appendEscaped appends s with the characters HTML gives a meaning to
// escaped, as html.EscapeString does.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '&':
			b = append(b, "&amp;"...)
		case '\'':
			b = append(b, "&#39;"...)
		case '"':
			b = append(b, "&#34;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// Content types and the server name every server sends.
const (
	ContentJSON  = "application/json"
	ContentText  = "text/plain"
	ContentHTML  = "text/html; charset=utf-8"
	ServerHeader = "cogen-tfb"
)
