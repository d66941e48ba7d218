//go:build linux

package conet

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestTextproto runs a line protocol written with bufio and net/textproto,
// unmodified, on both ends in coroutines of one env.
func TestTextproto(t *testing.T) {
	e := newEnv(t)
	ln := listenTCP(t)
	tk := startTicker(e)
	var replies []string
	done := 0
	spawn(e, func(co *stackful.Co) {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
			return
		}
		tc := textproto.NewConn(c)
		defer tc.Close()
		for {
			line, err := tc.ReadLine()
			if err != nil {
				break
			}
			verb, arg, _ := strings.Cut(line, " ")
			switch verb {
			case "HELO":
				tc.PrintfLine("250 hello %s", arg)
			case "QUIT":
				tc.PrintfLine("221 bye")
				done++
				return
			default:
				tc.PrintfLine("500 unknown %s", verb)
			}
		}
	})
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		c, err := Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		tc := textproto.NewConn(c)
		defer tc.Close()
		for _, cmd := range []string{"HELO coroutine", "NOOP", "QUIT"} {
			id, err := tc.Cmd("%s", cmd)
			if err != nil {
				t.Error(err)
				return
			}
			tc.StartResponse(id)
			code, msg, err := tc.ReadCodeLine(0)
			tc.EndResponse(id)
			if err != nil && code == 0 {
				t.Error(err)
				return
			}
			replies = append(replies, fmt.Sprintf("%d %s", code, msg))
		}
	})
	runUntil(t, e, 10*time.Second, func() bool { return done == 2 })
	tk.End(t, e)
	want := "250 hello coroutine|500 unknown NOOP|221 bye"
	if got := strings.Join(replies, "|"); got != want {
		t.Errorf("replies %q, want %q", got, want)
	}
}

// selfSigned returns a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "conet test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// TestTLS runs crypto/tls, unmodified, over coroutine conns: a server and a
// client in coroutines of one env, verifying a certificate made here.
func TestTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	e := newEnv(t)
	ln := listenTCP(t)
	tk := startTicker(e)
	var reply string
	var state tls.ConnectionState
	done := 0
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
			return
		}
		tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}})
		defer tc.Close()
		br := bufio.NewReader(tc)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			fmt.Fprintf(tc, "tls echo: %s", line)
		}
	})
	spawn(e, func(co *stackful.Co) {
		defer func() { done++ }()
		c, err := Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		tc := tls.Client(c, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
		defer tc.Close()
		if err := tc.Handshake(); err != nil {
			t.Error(err)
			return
		}
		state = tc.ConnectionState()
		io.WriteString(tc, "hello over tls\n")
		reply, err = bufio.NewReader(tc).ReadString('\n')
		if err != nil {
			t.Error(err)
		}
	})
	runUntil(t, e, 20*time.Second, func() bool { return done == 2 })
	tk.End(t, e)
	if reply != "tls echo: hello over tls\n" {
		t.Errorf("reply %q", reply)
	}
	if !state.HandshakeComplete || len(state.PeerCertificates) != 1 || state.Version < tls.VersionTLS12 {
		t.Errorf("connection state: complete %v, %d peer certificates, version %#x",
			state.HandshakeComplete, len(state.PeerCertificates), state.Version)
	}
}

// TestHTTPReadRequest serves HTTP/1.1 with http.ReadRequest on coroutine
// conns to a net/http client on plain goroutines (keep-alive included).
func TestHTTPReadRequest(t *testing.T) {
	e := newEnv(t)
	ln := listenTCP(t)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.Method, r.URL.Path)
	})
	spawn(e, func(co *stackful.Co) {
		Serve(co, ln, func(co *stackful.Co, c net.Conn) {
			defer c.Close()
			br := bufio.NewReader(c)
			for {
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				rec := &bufferedResponse{header: http.Header{}}
				handler.ServeHTTP(rec, req)
				io.Copy(io.Discard, req.Body)
				resp := &http.Response{StatusCode: rec.code(), ProtoMajor: 1, ProtoMinor: 1, Header: rec.header,
					ContentLength: int64(len(rec.body)), Body: io.NopCloser(strings.NewReader(string(rec.body)))}
				if err := resp.Write(c); err != nil {
					return
				}
			}
		}, nil)
	})
	type result struct {
		bodies []string
		err    error
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}
		defer client.CloseIdleConnections()
		for _, p := range []string{"/a", "/b", "/c"} {
			resp, err := client.Get("http://" + ln.Addr().String() + p)
			if err != nil {
				r.err = err
				break
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			r.bodies = append(r.bodies, string(b))
		}
		ch <- r
	}()
	var r result
	got := false
	go func() {
		r = <-ch
		e.Loop().Submit(func() { got = true })
	}()
	runUntil(t, e, 20*time.Second, func() bool { return got })
	if r.err != nil {
		t.Fatal(r.err)
	}
	if s := strings.Join(r.bodies, ","); s != "GET /a,GET /b,GET /c" {
		t.Errorf("bodies %q", s)
	}
}

// bufferedResponse is a minimal http.ResponseWriter that keeps the whole
// response in memory.
type bufferedResponse struct {
	header http.Header
	status int
	body   []byte
}

func (b *bufferedResponse) Header() http.Header { return b.header }
func (b *bufferedResponse) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	b.body = append(b.body, p...)
	return len(p), nil
}
func (b *bufferedResponse) code() int {
	if b.status == 0 {
		return http.StatusOK
	}
	return b.status
}
