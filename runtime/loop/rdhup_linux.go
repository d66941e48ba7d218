package loop

import "golang.org/x/sys/unix"

const pollRdHup = unix.POLLRDHUP // poll(2)'s peer-closed-its-write-side bit
