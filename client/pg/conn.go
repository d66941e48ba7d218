package pg

//go:generate go tool cogen

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/xdg-go/scram"
)

// A Config says where and as whom to connect.
type Config struct {
	// Addr is the server's IP address and port ("127.0.0.1:5432");
	// "localhost" stands for 127.0.0.1.
	Addr     string
	User     string
	Password string
	// Database defaults to User.
	Database string
	// ConnectTimeout bounds [Connect] as a whole: the TCP connect, the
	// startup and the authentication, up to the server's first
	// ReadyForQuery. Zero means [DefaultConnectTimeout]; negative, no
	// bound. A URL's connect_timeout sets it (0 there is no bound, as in
	// libpq).
	ConnectTimeout time.Duration
	// QueryTimeout bounds each call that waits for the server once
	// connected ([Conn.Send], [Conn.Next], [Conn.Exec], [Conn.Prepare],
	// [Conn.PrepareAll], and the Terminate of [Conn.Close]): the call
	// fails with an error wrapping [loop.ErrTimeout] when the server has
	// not taken its request or sent its whole answer by then. Zero means
	// [DefaultQueryTimeout]; negative, no bound. It is the client's bound
	// on a silent or stopped server; a query the server should cancel is
	// bounded by PostgreSQL's own statement_timeout (a run-time parameter:
	// Params or the URL).
	//
	// A conn that timed out is broken (its replies would be out of step):
	// it fails every later call, and a [Pool] closes it on release.
	QueryTimeout time.Duration
	// Params are extra run-time parameters of the session
	// (application_name, search_path, ...).
	Params map[string]string
}

// The bounds a zero [Config] gets: a hung server (stopped, or behind a
// dead link) turns into errors within them, never into a caller that
// waits for good.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultQueryTimeout   = 30 * time.Second
)

// ParseURL reads a postgres:// (or postgresql://) URL: user, password,
// host and port (5432 by default), database, and query parameters, of
// which sslmode=disable is accepted (TLS is not supported),
// connect_timeout (seconds; 0 is no bound) sets ConnectTimeout and the
// others become run-time parameters.
func ParseURL(s string) (Config, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Config{}, fmt.Errorf("pg: %w", err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return Config{}, fmt.Errorf("pg: %q: scheme %q is not postgres", s, u.Scheme)
	}
	cfg := Config{User: u.User.Username(), Database: strings.TrimPrefix(u.Path, "/")}
	cfg.Password, _ = u.User.Password()
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "5432"
	}
	cfg.Addr = host + ":" + port
	if strings.Contains(host, ":") {
		cfg.Addr = "[" + host + "]:" + port
	}
	for k, vs := range u.Query() {
		v := vs[len(vs)-1]
		switch k {
		case "sslmode":
			if v != "disable" {
				return Config{}, fmt.Errorf("pg: %q: sslmode=%s: TLS is not supported (use sslmode=disable)", s, v)
			}
		case "connect_timeout":
			var sec int
			if _, err := fmt.Sscan(v, &sec); err != nil || sec < 0 {
				return Config{}, fmt.Errorf("pg: %q: connect_timeout=%q", s, v)
			}
			cfg.ConnectTimeout = time.Duration(sec) * time.Second
			if sec == 0 {
				cfg.ConnectTimeout = -1
			}
		default:
			if cfg.Params == nil {
				cfg.Params = map[string]string{}
			}
			cfg.Params[k] = v
		}
	}
	return cfg, nil
}

// A Conn is one session with the server on a non-blocking socket of the
// loop of the coroutine (or task) that uses it. It is used by one
// coroutine at a time: a [Pool] hands conns out.
//
// Requests are written by Send (and the calls that send for themselves);
// replies are read in order by Next. A conn that failed to read, write or
// parse, that timed out, or that the server ended (a FATAL error) is
// broken: [Conn.Err] says why, and every call fails with it.
type Conn struct {
	cfg  Config
	fd   int
	rbuf []byte
	r, w int // the unread bytes are rbuf[r:w]
	wbuf []byte
	err  error
	// deadline ends the current call's waits for the server (see
	// Config.QueryTimeout); zero is none.
	deadline time.Time

	params   map[string]string
	pid      uint32
	secret   []byte
	txStatus byte
	stmts    map[string]*Stmt

	// The queries queued or sent whose results Next has not returned:
	// queue[head:]. ends holds the index just past the last query of each
	// group closed by a Sync, from group gi on; sent is the number of
	// queries written so far.
	queue   []*Stmt
	head    int
	ends    []int
	gi      int
	sent    int
	aborted error // the error that ended the current group early

	// Messages decoded in place, reused from one reply to the next.
	dataRow  pgproto3.DataRow
	errResp  pgproto3.ErrorResponse
	bind     pgproto3.Bind
	params32 [][]byte
	argbuf   []byte
	argOff   []int
	scratch  *Rows
}

// maxMessage bounds a message from the server (PostgreSQL's own limit for
// a row is 1 GiB; a larger length means the stream is corrupt).
const maxMessage = 1 << 30

// Connect dials cfg.Addr and starts a session: the startup message, then
// the authentication the server asks for (trust, cleartext password, md5
// or SCRAM-SHA-256), then the server's parameters, up to its first
// ReadyForQuery.
//
//co:stackless
func Connect(co *stackful.Co, cfg Config) (*Conn, error) {
	ap, err := resolve(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("pg: connect %s: %w", cfg.Addr, err)
	}
	fd, sa, err := loop.TCPSocket(ap)
	if err != nil {
		return nil, fmt.Errorf("pg: connect %s: %w", cfg.Addr, err)
	}
	c := newConn(fd, cfg)
	c.arm(cfg.ConnectTimeout, DefaultConnectTimeout)
	if err := co.ConnectTimeout(fd, sa, c.bound()); err != nil {
		co.Close(fd)
		return nil, fmt.Errorf("pg: connect %s: %w", cfg.Addr, err)
	}
	if err := c.startup(co); err != nil {
		co.Close(fd)
		return nil, fmt.Errorf("pg: connect %s: %w", cfg.Addr, err)
	}
	return c, nil
}

func resolve(addr string) (netip.AddrPort, error) {
	if rest, ok := strings.CutPrefix(addr, "localhost:"); ok {
		addr = "127.0.0.1:" + rest
	}
	return netip.ParseAddrPort(addr)
}

// arm starts a call's deadline: timeout from now (def when zero, none
// when negative). Each call that waits for the server arms its own, so
// that nested calls (Prepare's PrepareAll) restart it at most once.
func (c *Conn) arm(timeout, def time.Duration) {
	switch {
	case timeout == 0:
		c.deadline = time.Now().Add(def)
	case timeout < 0:
		c.deadline = time.Time{}
	default:
		c.deadline = time.Now().Add(timeout)
	}
}

// armQuery arms the deadline of a call on a connected conn.
func (c *Conn) armQuery() { c.arm(c.cfg.QueryTimeout, DefaultQueryTimeout) }

// bound is the handle's timeout for the next wait of the current call:
// what is left of its deadline (0 once passed: the handle then times out
// rather than waits), or negative (no bound).
func (c *Conn) bound() time.Duration {
	if c.deadline.IsZero() {
		return -1
	}
	return max(time.Until(c.deadline), 0)
}

func newConn(fd int, cfg Config) *Conn {
	return &Conn{
		cfg:    cfg,
		fd:     fd,
		rbuf:   make([]byte, 16<<10),
		wbuf:   make([]byte, 0, 4<<10),
		params: map[string]string{},
		stmts:  map[string]*Stmt{},
	}
}

// Rows returns a Rows that belongs to the conn, for callers that read
// one result at a time and want no Rows of their own (it is reused by
// every caller of the conn: read it before the conn is released).
func (c *Conn) Rows() *Rows {
	if c.scratch == nil {
		c.scratch = &Rows{}
	}
	return c.scratch
}

// FD returns the conn's socket.
func (c *Conn) FD() int { return c.fd }

// Err returns why the conn is broken, or nil.
func (c *Conn) Err() error { return c.err }

// ParameterStatus returns a run-time parameter the server reported
// (server_version, TimeZone, ...).
func (c *Conn) ParameterStatus(name string) string { return c.params[name] }

// PID returns the server process of the session (pg_backend_pid()).
func (c *Conn) PID() uint32 { return c.pid }

// TxStatus returns the transaction status of the last ReadyForQuery: 'I'
// idle, 'T' in a transaction, 'E' in a failed transaction.
func (c *Conn) TxStatus() byte { return c.txStatus }

// Idle reports whether every request written has been answered.
func (c *Conn) Idle() bool { return c.head == len(c.queue) && len(c.wbuf) == 0 }

// startup runs the startup and authentication exchange.
//
//co:stackless
func (c *Conn) startup(co *stackful.Co) error {
	params := map[string]string{"user": c.cfg.User, "client_encoding": "UTF8"}
	if c.cfg.Database != "" {
		params["database"] = c.cfg.Database
	}
	for k, v := range c.cfg.Params {
		params[k] = v
	}
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: params})
	var sc *scram.ClientConversation
	for {
		if err := c.flush(co); err != nil {
			return err
		}
		typ, body, err := c.receive(co)
		if err != nil {
			return err
		}
		msg, err := decodeStartup(typ, body)
		if err != nil {
			return c.fail(err)
		}
		switch m := msg.(type) {
		case *pgproto3.AuthenticationOk:
		case *pgproto3.AuthenticationCleartextPassword:
			c.send(&pgproto3.PasswordMessage{Password: c.cfg.Password})
		case *pgproto3.AuthenticationMD5Password:
			c.send(&pgproto3.PasswordMessage{Password: md5Password(c.cfg.User, c.cfg.Password, m.Salt)})
		case *pgproto3.AuthenticationSASL:
			first, conv, err := scramStart(m.AuthMechanisms, c.cfg.Password)
			if err != nil {
				return c.fail(err)
			}
			sc = conv
			c.send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte(first)})
		case *pgproto3.AuthenticationSASLContinue:
			if sc == nil {
				return c.fail(fmt.Errorf("%w: SASL continue without SASL", ErrProtocol))
			}
			next, err := sc.Step(string(m.Data))
			if err != nil {
				return c.fail(fmt.Errorf("pg: SCRAM-SHA-256: %w", err))
			}
			c.send(&pgproto3.SASLResponse{Data: []byte(next)})
		case *pgproto3.AuthenticationSASLFinal:
			if sc == nil {
				return c.fail(fmt.Errorf("%w: SASL final without SASL", ErrProtocol))
			}
			if _, err := sc.Step(string(m.Data)); err != nil || !sc.Valid() {
				return c.fail(fmt.Errorf("pg: SCRAM-SHA-256: the server's signature does not verify: %v", err))
			}
		case *pgproto3.ParameterStatus:
			c.params[m.Name] = m.Value
		case *pgproto3.BackendKeyData:
			c.pid, c.secret = m.ProcessID, append([]byte(nil), m.SecretKey...)
		case *pgproto3.NoticeResponse:
		case *pgproto3.ErrorResponse:
			return c.fail(newError(m))
		case *pgproto3.ReadyForQuery:
			c.txStatus = m.TxStatus
			return nil
		default:
			return c.fail(fmt.Errorf("%w: unexpected %T during startup", ErrProtocol, msg))
		}
	}
}

// decodeStartup decodes a message of the startup phase; the others are
// read without an interface value on the hot path.
func decodeStartup(typ byte, body []byte) (pgproto3.BackendMessage, error) {
	var msg pgproto3.BackendMessage
	switch typ {
	case 'R':
		if len(body) < 4 {
			return nil, fmt.Errorf("%w: short authentication message", ErrProtocol)
		}
		switch binary.BigEndian.Uint32(body) {
		case pgproto3.AuthTypeOk:
			msg = &pgproto3.AuthenticationOk{}
		case pgproto3.AuthTypeCleartextPassword:
			msg = &pgproto3.AuthenticationCleartextPassword{}
		case pgproto3.AuthTypeMD5Password:
			msg = &pgproto3.AuthenticationMD5Password{}
		case pgproto3.AuthTypeSASL:
			msg = &pgproto3.AuthenticationSASL{}
		case pgproto3.AuthTypeSASLContinue:
			msg = &pgproto3.AuthenticationSASLContinue{}
		case pgproto3.AuthTypeSASLFinal:
			msg = &pgproto3.AuthenticationSASLFinal{}
		default:
			return nil, fmt.Errorf("pg: authentication method %d is not supported", binary.BigEndian.Uint32(body))
		}
	case 'S':
		msg = &pgproto3.ParameterStatus{}
	case 'K':
		msg = &pgproto3.BackendKeyData{}
	case 'N':
		msg = &pgproto3.NoticeResponse{}
	case 'E':
		msg = &pgproto3.ErrorResponse{}
	case 'Z':
		msg = &pgproto3.ReadyForQuery{}
	case 'v':
		msg = &pgproto3.NegotiateProtocolVersion{}
	default:
		return nil, fmt.Errorf("%w: unexpected message %q during startup", ErrProtocol, typ)
	}
	if err := msg.Decode(body); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	return msg, nil
}

// md5Password is PostgreSQL's md5 response: "md5" followed by
// md5(md5(password + user) + salt) in hex.
func md5Password(user, password string, salt [4]byte) string {
	inner := md5.Sum([]byte(password + user))
	h := hex.EncodeToString(inner[:])
	outer := md5.Sum(append([]byte(h), salt[:]...))
	return "md5" + hex.EncodeToString(outer[:])
}

// scramStart begins a SCRAM-SHA-256 exchange (the only SASL mechanism
// supported; SCRAM-SHA-256-PLUS needs TLS). The user name goes empty, as
// libpq sends it: the server takes the startup message's.
func scramStart(mechanisms []string, password string) (string, *scram.ClientConversation, error) {
	found := false
	for _, m := range mechanisms {
		found = found || m == "SCRAM-SHA-256"
	}
	if !found {
		return "", nil, fmt.Errorf("pg: the server offers SASL mechanisms %v, not SCRAM-SHA-256", mechanisms)
	}
	client, err := scram.SHA256.NewClient("", password, "")
	if err != nil {
		return "", nil, fmt.Errorf("pg: SCRAM-SHA-256: %w", err)
	}
	conv := client.NewConversation()
	first, err := conv.Step("")
	if err != nil {
		return "", nil, fmt.Errorf("pg: SCRAM-SHA-256: %w", err)
	}
	return first, conv, nil
}

// send encodes a message into the write buffer; flush writes it.
func (c *Conn) send(msg pgproto3.FrontendMessage) {
	b, err := msg.Encode(c.wbuf)
	if err != nil {
		// Only messages over PostgreSQL's size limits fail to encode.
		panic(fmt.Sprintf("pg: encoding %T: %v", msg, err))
	}
	c.wbuf = b
}

// flush writes the buffered messages.
//
//co:stackless
func (c *Conn) flush(co *stackful.Co) error {
	if c.err != nil {
		return c.err
	}
	if len(c.wbuf) == 0 {
		return nil
	}
	_, err := co.WriteTimeout(c.fd, c.wbuf, c.bound())
	c.wbuf = c.wbuf[:0]
	if err != nil {
		return c.fail(fmt.Errorf("pg: write: %w", err))
	}
	return nil
}

// receive returns the type and body of the next message; the body aliases
// the read buffer until the next receive.
//
//co:stackless
func (c *Conn) receive(co *stackful.Co) (byte, []byte, error) {
	if c.err != nil {
		return 0, nil, c.err
	}
	for c.w-c.r < 5 {
		if err := c.fill(co, 5); err != nil {
			return 0, nil, err
		}
	}
	n := int(binary.BigEndian.Uint32(c.rbuf[c.r+1:]))
	if n < 4 || n > maxMessage {
		return 0, nil, c.fail(fmt.Errorf("%w: message length %d", ErrProtocol, n))
	}
	for c.w-c.r < 1+n {
		if err := c.fill(co, 1+n); err != nil {
			return 0, nil, err
		}
	}
	typ, body := c.rbuf[c.r], c.rbuf[c.r+5:c.r+1+n:c.r+1+n]
	c.r += 1 + n
	return typ, body, nil
}

// fill reads more into the buffer, making room for a message of need
// bytes first: the unread bytes move to the front (no body returned
// earlier is in use by then), and the buffer grows when need exceeds it.
//
//co:stackless
func (c *Conn) fill(co *stackful.Co, need int) error {
	if c.r > 0 && len(c.rbuf)-c.r < need {
		c.w = copy(c.rbuf, c.rbuf[c.r:c.w])
		c.r = 0
	}
	if need > len(c.rbuf) {
		nb := make([]byte, max(need, 2*len(c.rbuf)))
		c.w = copy(nb, c.rbuf[c.r:c.w])
		c.r = 0
		c.rbuf = nb
	}
	n, err := co.ReadTimeout(c.fd, c.rbuf[c.w:], c.bound())
	if err != nil {
		return c.fail(fmt.Errorf("pg: read: %w", err))
	}
	if n == 0 {
		return c.fail(fmt.Errorf("pg: read: %w", io.ErrUnexpectedEOF))
	}
	c.w += n
	return nil
}

// fail breaks the conn with err (the first error wins) and returns it.
func (c *Conn) fail(err error) error {
	if c.err == nil {
		c.err = err
	}
	return c.err
}

// Close ends the session (a Terminate message, unless the conn is broken)
// and closes the socket.
//
//co:stackless
func (c *Conn) Close(co *stackful.Co) error {
	if c.fd < 0 {
		return nil
	}
	if c.err == nil {
		c.armQuery()
		c.send(&pgproto3.Terminate{})
		c.flush(co)
	}
	err := co.Close(c.fd)
	c.fd = -1
	c.fail(ErrClosed)
	return err
}

// ErrClosed is the error of a conn after Close.
var ErrClosed = errors.New("pg: conn closed")

// ErrProtocol is wrapped by errors about what the server sent that the
// protocol does not allow here.
var ErrProtocol = errors.New("pg: protocol error")
