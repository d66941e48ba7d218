// Package misuse holds the misuse matrix of both coroutine models and the
// loop under them: one table-driven test in which every contract
// violation — resuming what cannot be resumed, yielding from the wrong
// place, operating after Close, from the wrong loop or goroutine — must be
// a clear panic or error whose message starts with its package's prefix
// ("loop: ", "stackful: ", "stackless: ", "cosync: "), never a crash, a hang or a silent
// success. The per-package misuse tests check the details; this table
// checks the whole surface the same way.
package misuse
