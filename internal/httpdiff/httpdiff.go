package httpdiff

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// A Case is a byte stream a client sends on one connection.
type Case struct {
	Name      string
	Send      []string // written in order, each in one write, a few ms apart
	HalfClose bool     // shut the client's write side after sending
	Methods   []string // the request methods in order where a HEAD needs a bodiless response
	Bodies    bool     // compare the response bodies too (for cases about what the handler saw)
}

// A Response is what the comparison keeps of one response.
type Response struct {
	Status     int
	Connection string // the Connection header, lower-cased
	Body       string // only for a Case with Bodies
}

// An Outcome is what a server answered on one connection.
type Outcome struct {
	Responses []Response
	Closed    bool   // the server closed (or reset) the connection
	Garbage   string // bytes that did not parse as a response
}

func (o Outcome) String() string {
	var b strings.Builder
	for _, r := range o.Responses {
		fmt.Fprintf(&b, "%d", r.Status)
		if r.Connection != "" {
			fmt.Fprintf(&b, "(%s)", r.Connection)
		}
		if r.Body != "" {
			fmt.Fprintf(&b, "%q", r.Body)
		}
		b.WriteByte(' ')
	}
	if o.Closed {
		b.WriteString("closed")
	} else {
		b.WriteString("open")
	}
	if o.Garbage != "" {
		b.WriteString(" +garbage")
	}
	return b.String()
}

// Quiet is how long a connection must stay silent to count as left open:
// generous, since the machines running the tests are often loaded.
var Quiet = 1500 * time.Millisecond

// Exchange sends c to addr and collects the answer: every byte until the
// server closes the connection or stays quiet for Quiet.
func Exchange(addr string, c Case) (Outcome, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return Outcome{}, err
	}
	defer conn.Close()
	var all bytes.Buffer
	closed := make(chan bool, 1)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			conn.SetReadDeadline(time.Now().Add(Quiet))
			n, err := conn.Read(buf)
			all.Write(buf[:n])
			if err != nil {
				var ne net.Error
				closed <- !(errors.As(err, &ne) && ne.Timeout())
				return
			}
		}
	}()
	for i, s := range c.Send {
		if i > 0 {
			time.Sleep(5 * time.Millisecond)
		}
		if _, err := io.WriteString(conn, s); err != nil {
			break // the server may close early; what it answered counts
		}
	}
	if c.HalfClose {
		conn.(*net.TCPConn).CloseWrite()
	}
	o := Outcome{Closed: <-closed}
	br := bufio.NewReader(&all)
	for i := 0; ; i++ {
		if _, err := br.Peek(1); err != nil {
			break
		}
		method := "GET"
		if i < len(c.Methods) {
			method = c.Methods[i]
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			rest, _ := io.ReadAll(br)
			o.Garbage = string(rest)
			break
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !c.Bodies {
			body = nil
		}
		conn := strings.ToLower(resp.Header.Get("Connection"))
		if resp.Close { // ReadResponse takes "close" out of the header
			conn = "close"
		}
		o.Responses = append(o.Responses, Response{resp.StatusCode, conn, string(body)})
		if resp.StatusCode == http.StatusContinue {
			c.Methods = append([]string{method}, c.Methods...) // the final response is still to come
		}
	}
	return o, nil
}

// Oracle serves h with net/http's http.Server on 127.0.0.1 until the test
// ends and returns its address.
func Oracle(t testing.TB, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ErrorLog: discardLog}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// Run sends every case to the oracle and to the server at addr, all at
// once, and fails the test for each case whose outcomes differ, unless
// differs names it (with the reason); a listed case that matches fails too,
// so the list stays true.
func Run(t *testing.T, oracle, addr string, cases []Case, differs map[string]string) {
	t.Helper()
	type result struct {
		want, got Outcome
		err       error
	}
	results := make([]result, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Add(2)
		go func() {
			defer wg.Done()
			o, err := Exchange(oracle, c)
			results[i].want = o
			if err != nil {
				results[i].err = err
			}
		}()
		go func() {
			defer wg.Done()
			o, err := Exchange(addr, c)
			results[i].got = o
			if err != nil {
				results[i].err = err
			}
		}()
	}
	wg.Wait()
	for i, c := range cases {
		r := results[i]
		if r.err != nil {
			t.Errorf("%s: %v", c.Name, r.err)
			continue
		}
		same := r.want.String() == r.got.String()
		reason, listed := differs[c.Name]
		switch {
		case !same && !listed:
			t.Errorf("%s: net/http %v; this server %v", c.Name, r.want, r.got)
		case same && listed:
			t.Errorf("%s: listed as differing (%s) but both answer %v", c.Name, reason, r.got)
		}
	}
}

var discardLog = log.New(io.Discard, "", 0)
