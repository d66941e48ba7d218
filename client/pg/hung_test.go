package pg

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/jackc/pgx/v5/pgproto3"
)

// hungServer listens on 127.0.0.1 and accepts connections it never
// answers: a stopped PostgreSQL (SIGSTOP) as its clients see it.
func hungServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// connectTo connects to cfg and reports how long Connect took; a conn is
// closed at once.
//
//co:stackless
func connectTo(co *stackful.Co, cfg Config) (time.Duration, error) {
	start := time.Now()
	c, err := Connect(co, cfg)
	took := time.Since(start)
	if err == nil {
		c.Close(co)
	}
	return took, err
}

// runConnect runs connectTo in model m.
func runConnect(t *testing.T, m model, cfg Config) (time.Duration, error) {
	var took time.Duration
	var err error
	f := newConnectToFrame(cfg)
	m.run(t, func(co *stackful.Co) { took, err = connectTo(co, cfg) }, f)
	if m.name == "stackless" {
		took, err = f.Result()
	}
	return took, err
}

// TestConnectHungServer: Connect to a server that accepts and never
// answers fails with loop.ErrTimeout once ConnectTimeout has passed, and
// a zero Config gets DefaultConnectTimeout (before it had none, and
// Connect waited for good). The two models run side by side: the default
// costs its 10 s of wall time once.
func TestConnectHungServer(t *testing.T) {
	addr := hungServer(t)
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			took, err := runConnect(t, m, Config{Addr: addr, User: "u", ConnectTimeout: 100 * time.Millisecond})
			if !errors.Is(err, loop.ErrTimeout) || took < 100*time.Millisecond || took > 5*time.Second {
				t.Fatalf("ConnectTimeout 100 ms: %v after %v, want a timeout", err, took)
			}
			took, err = runConnect(t, m, Config{Addr: addr, User: "u"})
			if !errors.Is(err, loop.ErrTimeout) || took < DefaultConnectTimeout || took > DefaultConnectTimeout+5*time.Second {
				t.Fatalf("zero Config: %v after %v, want a timeout after DefaultConnectTimeout", err, took)
			}
		})
	}
}

// TestDefaultQueryTimeout: a call on a conn of a zero Config waits at most
// DefaultQueryTimeout; a negative QueryTimeout is no bound.
func TestDefaultQueryTimeout(t *testing.T) {
	c := newConn(-1, Config{})
	c.armQuery()
	if b := c.bound(); b <= DefaultQueryTimeout-time.Second || b > DefaultQueryTimeout {
		t.Fatalf("a zero Config's call waits %v, want DefaultQueryTimeout", b)
	}
	c = newConn(-1, Config{QueryTimeout: -1})
	c.armQuery()
	if b := c.bound(); b >= 0 {
		t.Fatalf("QueryTimeout -1: a call waits %v, want no bound", b)
	}
	if cfg, err := ParseURL("postgres://u@h/db?connect_timeout=0"); err != nil || cfg.ConnectTimeout >= 0 {
		t.Fatalf("connect_timeout=0: %+v %v, want no bound", cfg, err)
	}
	if cfg, err := ParseURL("postgres://u@h/db"); err != nil || cfg.ConnectTimeout != 0 || cfg.QueryTimeout != 0 {
		t.Fatalf("no connect_timeout: %+v %v, want the defaults", cfg, err)
	}
}

// stallingServer speaks the startup (trust) on every connection; it
// answers each simple query of the first connection with a row
// description and half a data row, then nothing (a server that hangs
// mid-answer), and the queries of the later ones in full. closed receives
// the number of each connection the client closed.
func stallingServer(t *testing.T) (addr string, closed <-chan int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan int, 16)
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 1; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				if err := serveFake(c, n == 1); err != nil && !errors.Is(err, io.EOF) {
					t.Errorf("fake server, conn %d: %v", n, err)
				}
				ch <- n
			}()
		}
	}()
	return ln.Addr().String(), ch
}

// serveFake runs one session of stallingServer until the client ends it
// (Terminate or EOF: io.EOF is returned for both).
func serveFake(c net.Conn, stall bool) error {
	be := pgproto3.NewBackend(c, c)
	if _, err := be.ReceiveStartupMessage(); err != nil {
		return err
	}
	be.Send(&pgproto3.AuthenticationOk{})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if err := be.Flush(); err != nil {
		return err
	}
	desc := &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("n"), DataTypeOID: oidInt4, DataTypeSize: 4, Format: 0}}}
	for {
		msg, err := be.Receive()
		if err != nil {
			return io.EOF
		}
		switch msg.(type) {
		case *pgproto3.Terminate:
			return io.EOF
		case *pgproto3.Query:
		default:
			return fmt.Errorf("unexpected %T", msg)
		}
		be.Send(desc)
		if stall {
			if err := be.Flush(); err != nil {
				return err
			}
			row, _ := (&pgproto3.DataRow{Values: [][]byte{[]byte("42")}}).Encode(nil)
			if _, err := c.Write(row[:len(row)/2]); err != nil {
				return err
			}
			continue
		}
		be.Send(&pgproto3.DataRow{Values: [][]byte{[]byte("42")}})
		be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
		be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		if err := be.Flush(); err != nil {
			return err
		}
	}
}

// stallThenRecover runs a query on a pool's conn that times out half-way
// through the answer, then another on the pool: it must get a new conn,
// not the half-read one.
//
//co:stackless
func stallThenRecover(co *stackful.Co, p *Pool) error {
	err := stallThenRecoverOn(co, p)
	p.Close(co)
	return err
}

//co:stackless
func stallThenRecoverOn(co *stackful.Co, p *Pool) error {
	c, err := p.Acquire(co)
	if err != nil {
		return err
	}
	start := time.Now()
	_, err = c.Exec(co, "SELECT 42")
	took := time.Since(start)
	p.Release(co, c)
	if !errors.Is(err, loop.ErrTimeout) || took > 5*time.Second {
		return fmt.Errorf("a query the server stalls in: %v after %v, want a timeout", err, took)
	}
	if p.Idle() != 0 {
		return errors.New("the pool kept the conn that timed out half-way through an answer")
	}
	c, err = p.Acquire(co)
	if err != nil {
		return err
	}
	tag, err := c.Exec(co, "SELECT 42")
	p.Release(co, c)
	if err != nil || tag != "SELECT 1" {
		return fmt.Errorf("the query after the timeout: %q, %v", tag, err)
	}
	if p.Dials() != 2 || p.Idle() != 1 {
		return fmt.Errorf("%d dials, %d idle; want 2 and the new conn kept", p.Dials(), p.Idle())
	}
	return nil
}

// TestQueryTimeoutPool: a query the server stops answering half-way fails
// with loop.ErrTimeout after QueryTimeout; the pool closes that conn on
// release (its socket, as the server sees) and the next Acquire dials a
// new one that works.
func TestQueryTimeoutPool(t *testing.T) {
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			addr, closed := stallingServer(t)
			p := NewPool(Config{Addr: addr, User: "u", QueryTimeout: 100 * time.Millisecond}, 1)
			var err error
			f := newStallThenRecoverFrame(p)
			m.run(t, func(co *stackful.Co) { err = stallThenRecover(co, p) }, f)
			if m.name == "stackless" {
				err = f.Result()
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []int{1, 2} {
				select {
				case n := <-closed:
					if n != want {
						t.Fatalf("conn %d ended, want conn %d first", n, want)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("conn %d still open on the server's side", want)
				}
			}
		})
	}
}
