// Package httpdiff is the differential test suite of the module's HTTP
// servers: raw request byte streams ([Cases], and random ones built from
// [Pieces] by [Stream] for go test -fuzz) sent both to net/http's
// http.Server ([Oracle]) and to a server under test ([Run]). The status
// codes, the number and order of the responses, their Connection headers
// and whether the server closes the connection must match net/http's; a
// server lists the cases where it differs on purpose, with the reason, and
// a listed case that matches fails too, so that the list stays true.
//
// All cases run at once, each on its own connection; a connection counts
// as left open when it stays silent for [Quiet]. A run takes about Quiet
// plus the slowest answer.
package httpdiff
