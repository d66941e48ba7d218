//go:build unix

package bench

import (
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cogen-go/cogen/runtime/loop"
)

// IdleModels are the echo servers IdleConns measures.
var IdleModels = []string{"stackful", "stackless/generated", "goroutine"}

// IdleConns starts the echo server of the model (StartEchoServer), opens n
// connections to it, makes one 4-byte round trip on each so that every
// handler is suspended in its second Read, and returns the memory the
// server holds per idle connection: the growth of the stacks in use plus
// the live heap, after a garbage collection (MemoryResult.PerCoGC; PerCo is
// before it; RSS is the growth of the resident set, the measure of the
// wave-3 brief, which includes memory the runtime keeps but no longer
// uses). The client is this process too, on raw blocking sockets in
// one goroutine, so that it adds no Go memory but its fd slice, which is
// allocated before the first reading. Each connection costs two
// descriptors. Run it in a fresh process of its own, like Memory.
func IdleConns(model string, n int) (MemoryResult, error) {
	l, err := loop.New()
	if err != nil {
		return MemoryResult{}, err
	}
	defer l.Close()
	addr, shutdown, err := StartEchoServer(model, l)
	if err != nil {
		return MemoryResult{}, err
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return MemoryResult{}, err
	}
	sa := &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	fds := make([]int, 0, n)
	var clientErr error
	var clientDone atomic.Bool
	client := func() {
		defer func() { clientDone.Store(true); l.Wake() }()
		buf := []byte("ping")
		for range n {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
			if err != nil {
				clientErr = fmt.Errorf("bench: idle client socket: %w", err)
				return
			}
			fds = append(fds, fd)
			if err := unix.Connect(fd, sa); err != nil {
				clientErr = fmt.Errorf("bench: idle client connect: %w", err)
				return
			}
			if _, err := unix.Write(fd, buf); err != nil {
				clientErr = fmt.Errorf("bench: idle client write: %w", err)
				return
			}
			for got := 0; got < len(buf); {
				m, err := unix.Read(fd, buf[got:])
				if err != nil || m == 0 {
					clientErr = fmt.Errorf("bench: idle client read: %d bytes, %v", m, err)
					return
				}
				got += m
			}
		}
	}
	var m0, m1, m2 runtime.MemStats
	warmThreads(runtime.GOMAXPROCS(0) + 4)
	runtime.GC()
	runtime.ReadMemStats(&m0)
	rss0 := residentBytes()
	if model == "goroutine" {
		client()
	} else {
		go client()
		if err := l.Run(clientDone.Load); err != nil {
			return MemoryResult{}, err
		}
	}
	runtime.ReadMemStats(&m1)
	runtime.GC()
	runtime.ReadMemStats(&m2)
	rss := residentBytes() - rss0
	for _, fd := range fds {
		unix.Close(fd)
	}
	if err := shutdown(10 * time.Second); err != nil && clientErr == nil {
		clientErr = err
	}
	if clientErr != nil {
		return MemoryResult{}, clientErr
	}
	used := func(m *runtime.MemStats) float64 { return float64(m.StackInuse + m.HeapAlloc) }
	return MemoryResult{
		N:       n,
		PerCo:   (used(&m1) - used(&m0)) / float64(n),
		PerCoGC: (used(&m2) - used(&m0)) / float64(n),
		RSS:     float64(rss) / float64(n),
	}, nil
}

// residentBytes is the process's resident set size, from /proc/self/statm
// (0 where there is none).
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}
