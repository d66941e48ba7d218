package cohttp_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	. "github.com/cogen-go/cogen/cohttp"
	"golang.org/x/sys/unix"
)

// TestPipelinedBatchOneSend: the answers to a batch of 16 pipelined
// requests, written by the client at once, leave the server in one send:
// the client's socket receives one data segment per batch (TCP_INFO's
// data_segs_in; an answer batch is far below loopback's MSS, and the
// server sets TCP_NODELAY, so 16 sends would be up to 16 segments). The
// requests are TechEmpower's plaintext requests as wrk sends them (about
// 170 bytes: a batch spans two of the io_uring backend's 2 KiB receive
// buffers), and tfb's short ones.
func TestPipelinedBatchOneSend(t *testing.T) {
	wrkReq := "GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7\r\nConnection: keep-alive\r\n\r\n"
	shortReq := "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, model := range models {
		for name, req := range map[string]string{"wrk": wrkReq, "tfb": shortReq} {
			t.Run(model+"/"+name, func(t *testing.T) {
				addr := start(t, model, testHandler, Limits{})
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				raw, err := c.(*net.TCPConn).SyscallConn()
				if err != nil {
					t.Fatal(err)
				}
				segsIn := func() uint32 {
					var info *unix.TCPInfo
					var gerr error
					raw.Control(func(fd uintptr) { info, gerr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) })
					if gerr != nil {
						t.Fatal(gerr)
					}
					return info.Data_segs_in
				}
				br := bufio.NewReaderSize(c, 64<<10)
				batch := strings.Repeat(req, 16)
				const batches = 20
				before := segsIn()
				for range batches {
					if _, err := io.WriteString(c, batch); err != nil {
						t.Fatal(err)
					}
					for range 16 {
						resp, err := http.ReadResponse(br, nil)
						if err != nil {
							t.Fatal(err)
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != 200 {
							t.Fatalf("status %d", resp.StatusCode)
						}
					}
				}
				if n := segsIn() - before; n != batches {
					t.Errorf("%d batches of 16 pipelined %d-byte requests: the client received %d data segments, want %d (one send per batch)", batches, len(req), n, batches)
				}
			})
		}
	}
}
