package pg

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Rows holds the result of one query: its rows, copied out of the conn's
// buffer, and its command tag. A Rows is reused from query to query (Next
// resets it) and then allocates nothing once its storage is large enough.
type Rows struct {
	// Fields describe the columns, Formats their formats (see Stmt).
	Fields  []pgproto3.FieldDescription
	Formats []int16
	// Tag is the command tag ("SELECT 3", "UPDATE 20").
	Tag []byte

	ncol  int
	cells []cell
	buf   []byte
}

type cell struct{ off, n int32 } // n < 0: NULL

func (r *Rows) reset(s *Stmt) {
	r.Fields, r.Formats = s.Fields, s.Formats
	r.ncol = len(s.Fields)
	r.cells, r.buf, r.Tag = r.cells[:0], r.buf[:0], r.Tag[:0]
}

func (r *Rows) add(values [][]byte) error {
	if len(values) != r.ncol {
		return fmt.Errorf("%w: a row of %d columns for %d fields", ErrProtocol, len(values), r.ncol)
	}
	for _, v := range values {
		if v == nil {
			r.cells = append(r.cells, cell{int32(len(r.buf)), -1})
			continue
		}
		r.cells = append(r.cells, cell{int32(len(r.buf)), int32(len(v))})
		r.buf = append(r.buf, v...)
	}
	return nil
}

// Len returns the number of rows.
func (r *Rows) Len() int {
	if r.ncol == 0 {
		return 0
	}
	return len(r.cells) / r.ncol
}

func (r *Rows) at(row, col int) cell {
	if col < 0 || col >= r.ncol || row < 0 || row >= r.Len() {
		panic(fmt.Sprintf("pg: Rows: cell (%d, %d) out of %d×%d", row, col, r.Len(), r.ncol))
	}
	return r.cells[row*r.ncol+col]
}

// IsNull reports whether a cell is NULL.
func (r *Rows) IsNull(row, col int) bool { return r.at(row, col).n < 0 }

// Bytes returns a cell's raw value (nil for NULL); it stays valid until
// the Rows is reused.
func (r *Rows) Bytes(row, col int) []byte {
	c := r.at(row, col)
	if c.n < 0 {
		return nil
	}
	return r.buf[c.off : c.off+c.n : c.off+c.n]
}

// Text returns a cell as a string (text format; "" for NULL).
func (r *Rows) Text(row, col int) string { return string(r.Bytes(row, col)) }

// Int returns an integer cell, in binary (int2, int4, int8) or text format.
func (r *Rows) Int(row, col int) (int64, error) {
	b := r.Bytes(row, col)
	if b == nil {
		return 0, fmt.Errorf("pg: column %s is NULL", r.Fields[col].Name)
	}
	if r.Formats[col] == 0 {
		v, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("pg: column %s: %w", r.Fields[col].Name, err)
		}
		return v, nil
	}
	switch len(b) {
	case 2:
		return int64(int16(binary.BigEndian.Uint16(b))), nil
	case 4:
		return int64(int32(binary.BigEndian.Uint32(b))), nil
	case 8:
		return int64(binary.BigEndian.Uint64(b)), nil
	}
	return 0, fmt.Errorf("pg: column %s: a binary integer of %d bytes", r.Fields[col].Name, len(b))
}

// RowsAffected returns the count at the end of the command tag (rows
// updated, inserted, deleted or selected), or 0.
func (r *Rows) RowsAffected() int64 {
	i := len(r.Tag)
	for i > 0 && r.Tag[i-1] >= '0' && r.Tag[i-1] <= '9' {
		i--
	}
	n, _ := strconv.ParseInt(string(r.Tag[i:]), 10, 64)
	return n
}
