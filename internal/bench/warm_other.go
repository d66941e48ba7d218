//go:build unix && !linux

package bench

// warmThreads does nothing here: the thread warm-up (warm_linux.go) sleeps
// in nanosleep(2), which x/sys/unix offers on Linux only, and the
// idle-connection figures it steadies (their RSS from /proc) are Linux's.
func warmThreads(n int) {}
