//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/cogen-go/cogen/internal/hello"
)

// opTimeout bounds every client exchange: a server that stops answering is
// a failure, not a hang.
const opTimeout = 15 * time.Second

// client runs exchanges against random targets until the deadline.
func (s *soak) client(srv *servers, stream uint64) {
	rng := s.rng(stream)
	for time.Now().Before(s.deadline) {
		t := srv.targets[rng.IntN(len(srv.targets))]
		var err error
		if t.http {
			err = s.httpScenario(rng, t)
		} else {
			err = s.echoScenario(rng, t)
		}
		if err != nil {
			s.fail("%s: %v", t.name, err)
		}
	}
}

// payloadSize is mostly small, sometimes up to 1 MiB.
func payloadSize(rng *rand.Rand) int {
	switch p := rng.IntN(100); {
	case p < 70:
		return 1 + rng.IntN(512)
	case p < 97:
		return 512 + rng.IntN(64<<10)
	default:
		return 64<<10 + rng.IntN(1<<20-64<<10+1)
	}
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := rng.Uint64()
		for j := i; j < min(i+8, n); j++ {
			b[j] = byte(v)
			v >>= 8
		}
	}
	return b
}

func dial(addr string) (*net.TCPConn, error) {
	c, err := net.DialTimeout("tcp4", addr, opTimeout)
	if err != nil {
		return nil, err
	}
	tc := c.(*net.TCPConn)
	tc.SetDeadline(time.Now().Add(opTimeout))
	return tc, nil
}

// reset closes c with SO_LINGER 0, so the server sees a reset.
func reset(c *net.TCPConn) {
	c.SetLinger(0)
	c.Close()
}

// echoScenario runs one client connection against an echo server.
func (s *soak) echoScenario(rng *rand.Rand, t target) error {
	c, err := dial(t.addr)
	if err != nil {
		return err
	}
	switch p := rng.IntN(100); {
	case p < 55: // keep-alive: several verified round trips
		defer c.Close()
		for range 1 + rng.IntN(20) {
			if err := s.echoRoundTrip(c, randomBytes(rng, payloadSize(rng)), 0); err != nil {
				return err
			}
			c.SetDeadline(time.Now().Add(opTimeout))
		}
	case p < 70: // churn: one round trip per connection
		defer c.Close()
		return s.echoRoundTrip(c, randomBytes(rng, payloadSize(rng)), 0)
	case p < 80: // stall mid-message
		defer c.Close()
		return s.echoRoundTrip(c, randomBytes(rng, payloadSize(rng)), time.Duration(5+rng.IntN(100))*time.Millisecond)
	case p < 88: // half-close: write, shut the write side, read everything back until EOF
		defer c.Close()
		msg := randomBytes(rng, payloadSize(rng))
		s.faults.Add(1)
		go func() {
			c.Write(msg)
			c.CloseWrite()
		}()
		got, err := io.ReadAll(c)
		if err != nil {
			s.lost.Add(int64(len(msg)))
			return fmt.Errorf("half-closed connection: read back %d of %d bytes: %w", len(got), len(msg), err)
		}
		if !bytes.Equal(got, msg) {
			s.lost.Add(int64(len(msg)))
			return fmt.Errorf("half-closed connection: %d bytes came back for %d sent, or different ones", len(got), len(msg))
		}
		s.requests.Add(1)
		s.bytes.Add(int64(len(msg)))
	case p < 95: // reset mid-stream
		s.faults.Add(1)
		msg := randomBytes(rng, payloadSize(rng))
		c.Write(msg[:len(msg)/2])
		if rng.IntN(2) == 0 {
			time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
		}
		reset(c)
	default: // connect and send nothing
		s.faults.Add(1)
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		c.Close()
	}
	return nil
}

// echoRoundTrip is a counted roundTrip: a verified exchange, or bytes lost.
func (s *soak) echoRoundTrip(c *net.TCPConn, msg []byte, stall time.Duration) error {
	if stall > 0 {
		s.faults.Add(1)
	}
	if err := roundTrip(c, msg, stall); err != nil {
		s.lost.Add(int64(len(msg)))
		return err
	}
	s.requests.Add(1)
	s.bytes.Add(int64(len(msg)))
	return nil
}

// roundTrip writes msg (pausing half-way for stall, if non-zero) while
// reading the echo, and checks every byte came back.
func roundTrip(c *net.TCPConn, msg []byte, stall time.Duration) error {
	werr := make(chan error, 1)
	go func() {
		if stall > 0 {
			half := len(msg) / 2
			if _, err := c.Write(msg[:half]); err != nil {
				werr <- err
				return
			}
			time.Sleep(stall)
			_, err := c.Write(msg[half:])
			werr <- err
			return
		}
		_, err := c.Write(msg)
		werr <- err
	}()
	got := make([]byte, len(msg))
	n, err := io.ReadFull(c, got)
	if err2 := <-werr; err == nil {
		err = err2
	}
	if err != nil {
		return fmt.Errorf("round trip of %d bytes: %d came back: %w", len(msg), n, err)
	}
	if !bytes.Equal(got, msg) {
		return fmt.Errorf("round trip of %d bytes: different bytes came back", len(msg))
	}
	return nil
}

// httpScenario runs one client connection against a hello server.
func (s *soak) httpScenario(rng *rand.Rand, t target) error {
	dialed := time.Now() // no server timer of this connection can start before
	c, err := dial(t.addr)
	if err != nil {
		return err
	}
	defer c.Close()
	br := bufio.NewReader(c)
	get := "GET /soak HTTP/1.1\r\nHost: soak\r\nUser-Agent: cosoak\r\n\r\n"
	if t.timeouts && rng.IntN(100) < 12 {
		return s.cohttpScenario(rng, c, br, dialed)
	}
	switch p := rng.IntN(100); {
	case p < 50: // keep-alive, sometimes pipelined
		for range 1 + rng.IntN(10) {
			n := 1 + rng.IntN(3)
			if _, err := io.WriteString(c, strings.Repeat(get, n)); err != nil {
				return err
			}
			for range n {
				if err := s.readHello(br); err != nil {
					return err
				}
			}
			c.SetDeadline(time.Now().Add(opTimeout))
		}
	case p < 65: // a body the handler leaves unread, then another request
		body := randomBytes(rng, rng.IntN(8<<10))
		req := fmt.Sprintf("POST /soak HTTP/1.1\r\nHost: soak\r\nContent-Length: %d\r\n\r\n", len(body))
		if _, err := c.Write(append([]byte(req), body...)); err != nil {
			return err
		}
		if err := s.readHello(br); err != nil {
			return err
		}
		if _, err := io.WriteString(c, get); err != nil {
			return err
		}
		return s.readHello(br)
	case p < 75: // stall mid-request
		s.faults.Add(1)
		cut := rng.IntN(len(get))
		io.WriteString(c, get[:cut])
		time.Sleep(time.Duration(5+rng.IntN(100)) * time.Millisecond)
		if _, err := io.WriteString(c, get[cut:]); err != nil {
			return err
		}
		return s.readHello(br)
	case p < 85: // garbage: a 400 or a close, never a hang or a 200
		s.faults.Add(1)
		io.WriteString(c, "GARBAGE \x00\x01 NOT HTTP\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				return fmt.Errorf("garbage request answered %s", resp.Status)
			}
			return nil
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isReset(err) {
			return nil
		}
		return fmt.Errorf("garbage request: %w", err)
	case p < 93: // reset mid-request
		s.faults.Add(1)
		io.WriteString(c, get[:rng.IntN(len(get))])
		reset(c)
	case p < 96 && t.timeouts: // send part of a head, then nothing: closed at the read-header timeout
		s.faults.Add(1)
		io.WriteString(c, get[:1+rng.IntN(len(get)-1)])
		return s.expectClosedWithin(c, br, dialed, soakLimits.ReadHeaderTimeout)
	case p < 98 && t.timeouts: // a request, then idle: closed at the idle timeout
		s.faults.Add(1)
		sent := time.Now() // the server's idle timer starts after its answer
		io.WriteString(c, get)
		if err := s.readHello(br); err != nil {
			return err
		}
		return s.expectClosedWithin(c, br, sent, soakLimits.IdleTimeout)
	default: // connect and send nothing
		s.faults.Add(1)
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
	}
	return nil
}

// Stalled uploads: at most maxStalledUploads at once, each declaring
// stalledDeclared bytes and sending a quarter of it, so that they hold at
// most half of the cohttp servers' body budget.
const (
	maxStalledUploads = 2
	stalledDeclared   = 1 << 20
)

var stalledUploads = make(chan struct{}, maxStalledUploads)

// cohttpScenario is an exchange only cohttp's servers take: requests whose
// handler waits, pipelined with plain ones (answers in order), and the
// clients its read, write and body limits are for: a slow body and a
// stalled large upload (408, closed at the read timeout, not before) and a
// client that does not read (cut off by the write timeout).
func (s *soak) cohttpScenario(rng *rand.Rand, c *net.TCPConn, br *bufio.Reader, dialed time.Time) error {
	get := "GET /soak HTTP/1.1\r\nHost: soak\r\n\r\n"
	switch p := rng.IntN(100); {
	case p < 85: // waiting requests among plain ones, on one connection
		var b strings.Builder
		n := 1 + rng.IntN(6)
		for range n {
			if rng.IntN(2) == 0 {
				b.WriteString(get)
			} else {
				fmt.Fprintf(&b, "GET /wait?ms=%d HTTP/1.1\r\nHost: soak\r\n\r\n", rng.IntN(20))
			}
		}
		if _, err := io.WriteString(c, b.String()); err != nil {
			return err
		}
		for range n {
			if err := s.readHello(br); err != nil {
				return err
			}
		}
		return nil
	case p < 92: // a body that stops coming
		s.faults.Add(1)
		io.WriteString(c, "POST /soak HTTP/1.1\r\nHost: soak\r\nContent-Length: 100\r\n\r\n0123456789")
		return s.expectTimeoutAnswer(c, br, dialed)
	case p < 96: // a large upload that stalls
		select {
		case stalledUploads <- struct{}{}:
			defer func() { <-stalledUploads }()
		default:
			return nil
		}
		s.faults.Add(1)
		fmt.Fprintf(c, "POST /soak HTTP/1.1\r\nHost: soak\r\nContent-Length: %d\r\n\r\n", stalledDeclared)
		c.Write(make([]byte, stalledDeclared/4))
		return s.expectTimeoutAnswer(c, br, dialed)
	default: // a client that does not read: cut off by the write timeout
		s.faults.Add(1)
		const n = 2000                                                                     // of 64 KiB answers: far more than the socket buffers hold
		go io.WriteString(c, strings.Repeat("GET /big HTTP/1.1\r\nHost: soak\r\n\r\n", n)) // ends when the connection does
		time.Sleep(soakLimits.WriteTimeout + time.Second)
		c.SetDeadline(time.Now().Add(opTimeout))
		answers := 0
		for {
			resp, err := http.ReadResponse(br, nil)
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
			}
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() || answers == n {
					return fmt.Errorf("a client that did not read: %d answers of %d, then %v; want the connection cut off by the %v write timeout", answers, n, err, soakLimits.WriteTimeout)
				}
				return nil
			}
			answers++
		}
	}
}

// expectTimeoutAnswer checks that the server answers a request whose body
// stopped coming with 408 and closes the connection, no earlier than the
// read timeout after start (a time before the server's clock started) and
// not much later.
func (s *soak) expectTimeoutAnswer(c *net.TCPConn, br *bufio.Reader, start time.Time) error {
	c.SetDeadline(time.Now().Add(soakLimits.ReadTimeout + opTimeout))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return fmt.Errorf("a body that stopped coming: %w; want 408 at the %v read timeout", err, soakLimits.ReadTimeout)
	}
	io.Copy(io.Discard, resp.Body)
	took := time.Since(start)
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		return fmt.Errorf("a body that stopped coming: %s (Close %v); want 408 and the connection closed", resp.Status, resp.Close)
	}
	if took < soakLimits.ReadTimeout {
		return fmt.Errorf("a body that stopped coming was answered 408 after %v, before the %v read timeout", took, soakLimits.ReadTimeout)
	}
	return nil
}

// readHello reads one response and checks it is the hello answer.
func (s *soak) readHello(br *bufio.Reader) error {
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		s.lost.Add(int64(len(hello.Body)))
		return fmt.Errorf("reading a response: %w", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || string(body) != hello.Body {
		s.lost.Add(int64(len(hello.Body)))
		return fmt.Errorf("response %s, body %q, error %v", resp.Status, body, err)
	}
	s.requests.Add(1)
	s.bytes.Add(int64(len(body)))
	return nil
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// expectClosedWithin checks the server closes c, sending nothing more, no
// earlier than timeout after start (a time before the server's timer can
// have started) and not much later.
func (s *soak) expectClosedWithin(c *net.TCPConn, br *bufio.Reader, start time.Time, timeout time.Duration) error {
	c.SetDeadline(time.Now().Add(timeout + opTimeout))
	n, err := br.Read(make([]byte, 1))
	took := time.Since(start)
	switch {
	case n > 0:
		return fmt.Errorf("the server sent data to a connection it should close at its %v timeout", timeout)
	case !errors.Is(err, io.EOF) && !isReset(err):
		return fmt.Errorf("waiting for the %v timeout to close the connection: %w", timeout, err)
	case took < timeout:
		return fmt.Errorf("the connection closed after %v, before its %v timeout", took, timeout)
	}
	return nil
}
