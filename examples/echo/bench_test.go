//go:build linux

package main

import (
	"bytes"
	"net"
	"os"
	"runtime"
	"testing"

	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
)

func TestMain(m *testing.M) {
	echoload.MaybeRunChild()
	os.Exit(m.Run())
}

// The benchmarks below serve one echoload run of b.N requests (100
// connections, 64-byte ping-pong, client in a child process) with the
// layers of this package, for comparison with BenchmarkEchoStackful and
// BenchmarkEchoGoroutine in internal/echo (raw fds through the
// coroutine's own Read and Write, and Go's net package): the same metrics,
// wall time per request, requests per second, the server's CPU per request
// and its read and write system calls per request.

// Syscalls per request, all kinds: the rw-syscalls/req metric counts only
// reads and writes (/proc/self/io). To see every system call the server
// makes, run the server and the client as separate processes and count the
// server's system call tracepoints with perf while the client runs:
//
//	go build -o /tmp/echo . && /tmp/echo server -addr 127.0.0.1:18793 &
//	/tmp/echo client -addr 127.0.0.1:18793 -conns 100 -duration 4s &
//	sleep 1; perf stat -e 'syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_epoll_pwait,syscalls:sys_enter_epoll_ctl,raw_syscalls:sys_enter' -p $(pgrep -f 'echo server') -- sleep 2
//
// On the 2-core test machine: per request 1.00 read, 1.00 write, 0.04
// epoll_pwait, no epoll_ctl (a registration per connection, not per wait),
// and about 0.05 calls of the Go runtime (futex, nanosleep): 2.09 in all.
// strace -c -f counts the same kinds but slows the server so much that the
// ratios change (requests queue up, reads never find the socket empty).

// BenchmarkEchoHook is this example's libco-style server: an accept
// coroutine and a worker pool calling the hooked read and write.
func BenchmarkEchoHook(b *testing.B) {
	s, err := startServer(serverConfig{addr: "127.0.0.1:0", workers: 200, loops: 1, out: new(bytes.Buffer)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.stop()
	runLoad(b, s.addr)
}

// BenchmarkEchoConet serves net.Conn connections from conet.Serve: the
// same exchange through the net adapters. The handler reads into a 16 KiB
// buffer, as libco's example and io.Copy do: a read shorter than its buffer
// tells the loop that the stream is empty, so the next read waits for
// readiness instead of trying (loop.TryReadStream). With a buffer exactly
// the size of a message every read is full, and each exchange pays a
// read(2) returning EAGAIN.
func BenchmarkEchoConet(b *testing.B) {
	ln, err := conet.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		env, err := stackful.NewEnv()
		if err != nil {
			b.Error(err)
			return
		}
		defer env.Close()
		stopped := false
		env.Create(func(co *stackful.Co) {
			conet.Serve(co, ln, func(co *stackful.Co, c net.Conn) {
				defer c.Close()
				var buf [16 << 10]byte
				for {
					n, err := c.Read(buf[:])
					if err != nil {
						return
					}
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			}, nil)
			stopped = true
		}, nil).Resume()
		env.Run(func() bool { return stopped })
	}()
	defer func() { ln.Close(); <-done }()
	runLoad(b, ln.Addr().String())
}

func runLoad(b *testing.B, addr string) {
	ld, err := echoload.Start(echoload.Config{Addr: addr, Conns: 100, Requests: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	res, err := ld.Wait()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Elapsed.Nanoseconds())/float64(max(res.Requests, 1)), "ns/op")
	b.ReportMetric(res.ReqPerSec(), "req/s")
	b.ReportMetric(res.CPUPerReqMicros(), "us-cpu/req")
	if n, ok := res.SyscallsPerReq(); ok {
		b.ReportMetric(n, "rw-syscalls/req")
	}
}
