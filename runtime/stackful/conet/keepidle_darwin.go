package conet

import "golang.org/x/sys/unix"

// tcpKeepIdle is the option for the idle time before keep-alive probes.
const tcpKeepIdle = unix.TCP_KEEPALIVE
