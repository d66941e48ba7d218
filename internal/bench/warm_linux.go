//go:build linux

package bench

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// warmThreads makes the runtime start n threads, if it has fewer, before a
// measurement: each new thread (an M) comes with a scheduler stack and a
// signal stack from the goroutine stack allocator (48 KiB on linux/amd64,
// in StackInuse), and the runtime keeps its idle threads for later. A
// measurement whose blocking system calls (IdleConns's client, a loop's
// epoll_wait) made the runtime start threads counted their stacks: under
// load (two CPU hogs, load 11-12) one thread started during each
// measurement (160 B per connection of 300), more in some, and
// TestIdleConns's stackful model came out 612 B above the goroutine one
// (the bound is 512); with the warm-up none started in the runs measured.
// Threads start for goroutines blocked in system calls at once: n of them
// sleep in nanosleep(2) together.
func warmThreads(n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts := unix.NsecToTimespec(int64(20 * time.Millisecond))
			for unix.Nanosleep(&ts, &ts) == unix.EINTR {
			}
		}()
	}
	wg.Wait()
}
