package pg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Type OIDs the client encodes and decodes in binary.
const (
	oidInt8 = 20
	oidInt2 = 21
	oidInt4 = 23
)

// A Stmt is a statement prepared on one conn (its name is the conn's).
type Stmt struct {
	Name string
	SQL  string
	// ParamOIDs and Fields are what the server described.
	ParamOIDs []uint32
	Fields    []pgproto3.FieldDescription
	// Formats are the result formats requested per column: binary (1)
	// for int2, int4 and int8 columns, text (0) for the others. Change
	// them before queueing to read a column in the other format.
	Formats []int16
}

// A StmtDef names a statement to prepare.
type StmtDef struct{ Name, SQL string }

// An Arg is one parameter of a query: [Int], [Text], [Bytes] or [Null].
type Arg struct {
	kind byte
	i    int64
	s    string
	b    []byte
}

// Int is an integer parameter, sent in binary for int2, int4 and int8
// parameters and in text for the others.
func Int(v int64) Arg { return Arg{kind: 'i', i: v} }

// Text is a parameter sent in text format.
func Text(s string) Arg { return Arg{kind: 't', s: s} }

// Bytes is a parameter sent in binary format (a bytea, or the binary form
// of the parameter's type).
func Bytes(b []byte) Arg { return Arg{kind: 'b', b: b} }

// Null is the SQL NULL.
func Null() Arg { return Arg{kind: 'n'} }

// Prepare prepares sql under name (and returns the conn's earlier one if
// name is already prepared with the same sql).
//
//co:stackless
func (c *Conn) Prepare(co *stackful.Co, name, sql string) (*Stmt, error) {
	if err := c.PrepareAll(co, []StmtDef{{name, sql}}); err != nil {
		return nil, err
	}
	return c.stmts[name], nil
}

// PrepareAll prepares the statements in one round trip (pipelined Parse
// and Describe messages, one Sync). The first error is returned; the
// statements before it are prepared.
//
//co:stackless
func (c *Conn) PrepareAll(co *stackful.Co, defs []StmtDef) error {
	if !c.Idle() {
		return errors.New("pg: PrepareAll with results pending")
	}
	c.armQuery()
	var todo []*Stmt
	for _, d := range defs {
		if s, ok := c.stmts[d.Name]; ok {
			if s.SQL != d.SQL {
				return fmt.Errorf("pg: statement %q is already prepared as %q", d.Name, s.SQL)
			}
			continue
		}
		s := &Stmt{Name: d.Name, SQL: d.SQL}
		c.send(&pgproto3.Parse{Name: d.Name, Query: d.SQL})
		c.send(&pgproto3.Describe{ObjectType: 'S', Name: d.Name})
		todo = append(todo, s)
	}
	if len(todo) == 0 {
		return nil
	}
	c.send(&pgproto3.Sync{})
	if err := c.flush(co); err != nil {
		return err
	}
	var first error
	i := 0
	for {
		typ, body, err := c.receive(co)
		if err != nil {
			return err
		}
		switch typ {
		case '1': // ParseComplete
		case 't':
			var m pgproto3.ParameterDescription
			if err := m.Decode(body); err != nil || i >= len(todo) {
				return c.fail(fmt.Errorf("%w: ParameterDescription: %v", ErrProtocol, err))
			}
			todo[i].ParamOIDs = m.ParameterOIDs
		case 'T', 'n':
			if i >= len(todo) {
				return c.fail(fmt.Errorf("%w: a description too many", ErrProtocol))
			}
			if typ == 'T' {
				var m pgproto3.RowDescription
				if err := m.Decode(body); err != nil {
					return c.fail(fmt.Errorf("%w: RowDescription: %v", ErrProtocol, err))
				}
				todo[i].setFields(m.Fields)
			}
			c.stmts[todo[i].Name] = todo[i]
			i++
		case 'E':
			if first == nil {
				first = c.errorResponse(body)
			}
		case 'Z':
			c.txStatus = readyStatus(body)
			return first
		default:
			if err := c.async(typ, body); err != nil {
				return err
			}
		}
	}
}

// setFields keeps copies of the server's descriptions (they alias the
// read buffer) and picks the result formats.
func (s *Stmt) setFields(fields []pgproto3.FieldDescription) {
	s.Fields = make([]pgproto3.FieldDescription, len(fields))
	s.Formats = make([]int16, len(fields))
	for i, f := range fields {
		f.Name = append([]byte(nil), f.Name...)
		s.Fields[i] = f
		switch f.DataTypeOID {
		case oidInt2, oidInt4, oidInt8:
			s.Formats[i] = 1
		}
	}
}

// Stmt returns the statement prepared on the conn under name, or nil.
func (c *Conn) Stmt(name string) *Stmt { return c.stmts[name] }

// Queue appends the execution of s with args to the requests the next
// Send writes (Bind and Execute messages). Its result is read by Next,
// in the order of queueing.
func (c *Conn) Queue(s *Stmt, args ...Arg) error {
	if c.err != nil {
		return c.err
	}
	if len(args) != len(s.ParamOIDs) {
		return fmt.Errorf("pg: %s: %d arguments for %d parameters", s.Name, len(args), len(s.ParamOIDs))
	}
	c.argbuf, c.argOff = c.argbuf[:0], c.argOff[:0]
	formats := c.bind.ParameterFormatCodes[:0]
	for i, a := range args {
		start := len(c.argbuf)
		format := int16(0)
		switch a.kind {
		case 'i':
			switch s.ParamOIDs[i] {
			case oidInt2:
				c.argbuf, format = binary.BigEndian.AppendUint16(c.argbuf, uint16(a.i)), 1
			case oidInt4:
				c.argbuf, format = binary.BigEndian.AppendUint32(c.argbuf, uint32(a.i)), 1
			case oidInt8:
				c.argbuf, format = binary.BigEndian.AppendUint64(c.argbuf, uint64(a.i)), 1
			default:
				c.argbuf = strconv.AppendInt(c.argbuf, a.i, 10)
			}
		case 't':
			c.argbuf = append(c.argbuf, a.s...)
		case 'b':
			c.argbuf, format = append(c.argbuf, a.b...), 1
		case 'n':
			start = -1
		default:
			return fmt.Errorf("pg: %s: argument %d is the zero Arg (use pg.Null())", s.Name, i+1)
		}
		formats = append(formats, format)
		c.argOff = append(c.argOff, start, len(c.argbuf))
	}
	c.params32 = c.params32[:0]
	for i := 0; i < len(c.argOff); i += 2 {
		if c.argOff[i] < 0 {
			c.params32 = append(c.params32, nil)
		} else {
			c.params32 = append(c.params32, c.argbuf[c.argOff[i]:c.argOff[i+1]])
		}
	}
	c.bind = pgproto3.Bind{PreparedStatement: s.Name, ParameterFormatCodes: formats, Parameters: c.params32, ResultFormatCodes: s.Formats}
	c.send(&c.bind)
	c.wbuf = appendExecute(c.wbuf)
	c.queue = append(c.queue, s)
	return nil
}

// appendExecute appends an Execute of the unnamed portal, all rows.
func appendExecute(b []byte) []byte {
	return append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0)
}

// Send closes the queued requests with a Sync and writes them: the
// requests since the last Send are one pipeline, which the server runs
// until its first error.
//
//co:stackless
func (c *Conn) Send(co *stackful.Co) error {
	if c.err != nil {
		return c.err
	}
	if c.sent == len(c.queue) {
		return nil
	}
	c.armQuery()
	c.wbuf = append(c.wbuf, 'S', 0, 0, 0, 4)
	c.ends = append(c.ends, len(c.queue))
	c.sent = len(c.queue)
	return c.flush(co)
}

// Next reads the result of the next query sent, in the order of queueing,
// into rows (which it resets; rows may be reused from one query to the
// next, and then allocates nothing once large enough). A query the
// server refused returns its [*Error]; the queries after it in the same
// pipeline return an error wrapping [ErrAborted].
//
//co:stackless
func (c *Conn) Next(co *stackful.Co, rows *Rows) error {
	if c.err != nil {
		return c.err
	}
	if c.head == c.sent {
		return errors.New("pg: Next without a query sent")
	}
	c.armQuery()
	s := c.queue[c.head]
	c.head++
	last := c.head == c.ends[c.gi]
	rows.reset(s)
	if c.aborted != nil {
		err := c.aborted
		if last {
			c.endGroup()
		}
		return err
	}
	for {
		typ, body, err := c.receive(co)
		if err != nil {
			return err
		}
		switch typ {
		case '2': // BindComplete
		case 'D':
			if err := c.dataRow.Decode(body); err != nil {
				return c.fail(fmt.Errorf("%w: DataRow: %v", ErrProtocol, err))
			}
			if err := rows.add(c.dataRow.Values); err != nil {
				return c.fail(err)
			}
		case 'C', 'I': // CommandComplete, EmptyQueryResponse
			if typ == 'C' && len(body) > 0 {
				rows.Tag = append(rows.Tag[:0], body[:len(body)-1]...)
			}
			if last {
				return c.ready(co)
			}
			return nil
		case 'E':
			qerr := c.errorResponse(body)
			var perr *Error
			if errors.As(qerr, &perr) && !last {
				c.aborted = &abortedError{perr}
			}
			if c.err != nil {
				return c.err
			}
			if err := c.ready(co); err != nil {
				return err
			}
			return qerr
		default:
			if err := c.async(typ, body); err != nil {
				return err
			}
		}
	}
}

// ready reads up to the ReadyForQuery that ends the current group.
//
//co:stackless
func (c *Conn) ready(co *stackful.Co) error {
	for {
		typ, body, err := c.receive(co)
		if err != nil {
			return err
		}
		switch typ {
		case 'Z':
			c.txStatus = readyStatus(body)
			if c.aborted == nil {
				c.endGroup()
			}
			return nil
		case 'D', 'C', 'I', '2', 'E', 'n', 't', 'T', '1', '3':
			// The rest of a group the server stopped running.
		default:
			if err := c.async(typ, body); err != nil {
				return err
			}
		}
	}
}

// endGroup forgets the group that just ended; the queue's storage is
// reused once every group sent is done.
func (c *Conn) endGroup() {
	c.gi++
	c.aborted = nil
	if c.head == len(c.queue) {
		clear(c.queue)
		c.queue, c.ends = c.queue[:0], c.ends[:0]
		c.head, c.gi, c.sent = 0, 0, 0
	}
}

// errorResponse decodes an ErrorResponse; a FATAL one breaks the conn.
func (c *Conn) errorResponse(body []byte) error {
	if err := c.errResp.Decode(body); err != nil {
		return c.fail(fmt.Errorf("%w: ErrorResponse: %v", ErrProtocol, err))
	}
	e := newError(&c.errResp)
	if e.Fatal() {
		return c.fail(e)
	}
	return e
}

// async handles the messages the server may send at any time: notices,
// parameter changes and notifications (dropped: this client does not
// LISTEN). Anything else is a protocol error.
func (c *Conn) async(typ byte, body []byte) error {
	switch typ {
	case 'N', 'A':
		return nil
	case 'S':
		var m pgproto3.ParameterStatus
		if err := m.Decode(body); err != nil {
			return c.fail(fmt.Errorf("%w: ParameterStatus: %v", ErrProtocol, err))
		}
		c.params[m.Name] = m.Value
		return nil
	case 'E':
		return c.errorResponse(body)
	}
	return c.fail(fmt.Errorf("%w: unexpected message %q", ErrProtocol, typ))
}

func readyStatus(body []byte) byte {
	if len(body) == 1 {
		return body[0]
	}
	return 0
}

// Exec runs sql with the simple query protocol (several statements may be
// separated by semicolons), discards any rows, and returns the command tag
// of the last statement, or the first error.
//
//co:stackless
func (c *Conn) Exec(co *stackful.Co, sql string) (string, error) {
	if !c.Idle() {
		return "", errors.New("pg: Exec with results pending")
	}
	c.armQuery()
	c.send(&pgproto3.Query{String: sql})
	if err := c.flush(co); err != nil {
		return "", err
	}
	var first error
	tag := ""
	for {
		typ, body, err := c.receive(co)
		if err != nil {
			return "", err
		}
		switch typ {
		case 'T', 'D', 'I':
		case 'C':
			if len(body) > 0 {
				tag = string(body[:len(body)-1])
			}
		case 'E':
			if first == nil {
				first = c.errorResponse(body)
			}
			if c.err != nil {
				return "", c.err
			}
		case 'Z':
			c.txStatus = readyStatus(body)
			return tag, first
		default:
			if err := c.async(typ, body); err != nil {
				return "", err
			}
		}
	}
}
