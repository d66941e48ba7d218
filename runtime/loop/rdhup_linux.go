package loop

import "golang.org/x/sys/unix"

//lint:ignore U1000 used by the portable poller (netpoll_unix.go, -tags cogen_netpoll on Linux)
const pollRdHup = unix.POLLRDHUP // poll(2)'s peer-closed-its-write-side bit
