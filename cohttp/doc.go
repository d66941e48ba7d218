// Package cohttp is what the module's HTTP/1.1 servers share: one set of
// limits against hostile clients ([Limits]), net/http's server semantics
// around http.ReadRequest for the servers built on it ([RequestReader]:
// examples/http and the benchmarks' hello loops), and the error answers of
// net/http's server ([Error]), byte for byte.
//
// # net/http as the oracle
//
// Every server is tested against net/http's http.Server with the same raw
// request byte streams (internal/httpdiff): status codes, the number and
// order of responses, Connection headers and whether the connection stays
// open must match, or the test lists the difference with its reason.
//
// # Limits
//
// Zero values are safe defaults: 1 MiB of request head (then 431 and
// close), 10 s to read a head, 60 s of keep-alive idleness, 4 MiB of body
// for handlers that read one, 10,000 connections per env (then accepting
// pauses). A negative value turns a limit off.
//
// # Costs
//
// A RequestReader holds a 4 KiB read buffer; the head limit is enforced
// under that buffer, so a client sending an endless head costs the server
// the limit in reading time and nothing in memory beyond the buffer and
// the header map http.ReadRequest builds. The timeouts set the source's
// read deadline up to three times per request.
package cohttp
