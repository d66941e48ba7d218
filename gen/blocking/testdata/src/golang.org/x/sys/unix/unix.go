// Package unix is a stub of golang.org/x/sys/unix for the analyzer tests.
package unix

type Sockaddr interface{}
