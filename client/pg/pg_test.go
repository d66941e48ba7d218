package pg

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// queries runs every kind of request against the server on one conn:
// simple-protocol Exec, prepared statements, a pipeline of 20 queries with
// one Sync, int and text columns in binary and text formats, NULLs, an
// error with its SQLSTATE, a pipeline that fails half-way (the rest is
// not run), and the conn's recovery after each error.
//
//co:stackless
func queries(co *stackful.Co, cfg Config, table string) error {
	c, err := Connect(co, cfg)
	if err != nil {
		return err
	}
	err = queriesOn(co, c, table)
	c.Close(co)
	return err
}

//co:stackless
func queriesOn(co *stackful.Co, c *Conn, table string) error {
	if c.ParameterStatus("server_version") == "" || c.PID() == 0 {
		return fmt.Errorf("startup: server_version %q, pid %d", c.ParameterStatus("server_version"), c.PID())
	}
	if _, err := c.Exec(co, "CREATE TEMP TABLE "+table+" (id int PRIMARY KEY, n bigint, s text)"); err != nil {
		return err
	}
	ins, err := c.Prepare(co, "ins", "INSERT INTO "+table+" (id, n, s) VALUES ($1, $2, $3)")
	if err != nil {
		return err
	}
	sel, err := c.Prepare(co, "sel", "SELECT id, n, s FROM "+table+" WHERE id = $1")
	if err != nil {
		return err
	}
	if len(sel.Fields) != 3 || string(sel.Fields[2].Name) != "s" || len(ins.ParamOIDs) != 3 {
		return fmt.Errorf("descriptions: %d fields, %d parameters", len(sel.Fields), len(ins.ParamOIDs))
	}
	// 20 inserts and 20 selects in one pipeline.
	for i := 1; i <= 20; i++ {
		s := Text("row " + strconv.Itoa(i))
		if i == 7 {
			s = Null()
		}
		if err := c.Queue(ins, Int(int64(i)), Int(int64(i)<<40), s); err != nil {
			return err
		}
	}
	for i := 1; i <= 20; i++ {
		if err := c.Queue(sel, Int(int64(i))); err != nil {
			return err
		}
	}
	if err := c.Send(co); err != nil {
		return err
	}
	var rows Rows
	for i := 1; i <= 20; i++ {
		if err := c.Next(co, &rows); err != nil {
			return fmt.Errorf("insert %d: %w", i, err)
		}
		if string(rows.Tag) != "INSERT 0 1" || rows.RowsAffected() != 1 {
			return fmt.Errorf("insert %d: tag %q", i, rows.Tag)
		}
	}
	for i := 1; i <= 20; i++ {
		if err := c.Next(co, &rows); err != nil {
			return fmt.Errorf("select %d: %w", i, err)
		}
		if err := checkRow(&rows, i); err != nil {
			return err
		}
	}
	// The same select with every column in text format.
	text := *sel
	text.Name, text.Formats = sel.Name, []int16{0, 0, 0}
	c.Queue(&text, Int(9))
	if err := c.Send(co); err != nil {
		return err
	}
	if err := c.Next(co, &rows); err != nil {
		return err
	}
	if err := checkRow(&rows, 9); err != nil {
		return fmt.Errorf("text format: %w", err)
	}
	// A unique violation: the error, with its SQLSTATE; the conn goes on.
	c.Queue(ins, Int(1), Int(0), Text("dup"))
	if err := c.Send(co); err != nil {
		return err
	}
	err = c.Next(co, &rows)
	if Code(err) != "23505" {
		return fmt.Errorf("duplicate insert: %v, want SQLSTATE 23505", err)
	}
	// A pipeline failing at its second query: the third is not run.
	c.Queue(sel, Int(2))
	c.Queue(ins, Int(3), Int(0), Text("dup"))
	c.Queue(ins, Int(100), Int(0), Text("never"))
	if err := c.Send(co); err != nil {
		return err
	}
	if err := c.Next(co, &rows); err != nil || checkRow(&rows, 2) != nil {
		return fmt.Errorf("pipeline's first query: %v", err)
	}
	if err := c.Next(co, &rows); Code(err) != "23505" {
		return fmt.Errorf("pipeline's failing query: %v", err)
	}
	err = c.Next(co, &rows)
	if !errors.Is(err, ErrAborted) || Code(err) != "23505" {
		return fmt.Errorf("pipeline's query after the failure: %v, want ErrAborted", err)
	}
	if _, err := c.Exec(co, "SELEC 1"); Code(err) != "42601" {
		return fmt.Errorf("syntax error: %v", err)
	}
	if _, err := c.Prepare(co, "bad", "SELECT nope FROM "+table); Code(err) != "42703" {
		return fmt.Errorf("preparing a bad statement: %v", err)
	}
	tag, err := c.Exec(co, "SELECT count(*) FROM "+table)
	if err != nil || tag != "SELECT 1" {
		return fmt.Errorf("after the errors: %q %v", tag, err)
	}
	c.Queue(sel, Int(100))
	c.Send(co)
	if err := c.Next(co, &rows); err != nil || rows.Len() != 0 || !c.Idle() || c.TxStatus() != 'I' {
		return fmt.Errorf("the aborted insert ran, or the conn is not idle: %d rows, %v", rows.Len(), err)
	}
	return c.Err()
}

// checkRow checks the row with id i as queries inserted it.
func checkRow(rows *Rows, i int) error {
	if rows.Len() != 1 {
		return fmt.Errorf("select %d: %d rows", i, rows.Len())
	}
	id, err1 := rows.Int(0, 0)
	n, err2 := rows.Int(0, 1)
	if err1 != nil || err2 != nil || id != int64(i) || n != int64(i)<<40 {
		return fmt.Errorf("select %d: id %d n %d (%v, %v)", i, id, n, err1, err2)
	}
	if i == 7 {
		if !rows.IsNull(0, 2) {
			return fmt.Errorf("select 7: s is %q, want NULL", rows.Text(0, 2))
		}
	} else if s := rows.Text(0, 2); s != "row "+strconv.Itoa(i) {
		return fmt.Errorf("select %d: s %q", i, s)
	}
	return nil
}

func TestQueries(t *testing.T) {
	cfg := serverConfig(t)
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			var err error
			f := newQueriesFrame(cfg, "t_"+m.name)
			m.run(t, func(co *stackful.Co) { err = queries(co, cfg, "t_"+m.name) }, f)
			if m.name == "stackless" {
				err = f.Result()
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// login connects as cfg.User and returns current_user.
//
//co:stackless
func login(co *stackful.Co, cfg Config) (string, error) {
	c, err := Connect(co, cfg)
	if err != nil {
		return "", err
	}
	user := ""
	s, err := c.Prepare(co, "", "SELECT current_user::text")
	if err == nil {
		c.Queue(s)
		err = c.Send(co)
	}
	var rows Rows
	if err == nil {
		err = c.Next(co, &rows)
	}
	if err == nil {
		user = rows.Text(0, 0)
	}
	c.Close(co)
	return user, err
}

// TestAuth logs in with each password method the server has lines for
// (COGEN_PG_AUTH, see .ci/dbservers), in both models, and fails to with a
// wrong password (SQLSTATE 28P01).
func TestAuth(t *testing.T) {
	cfg := serverConfig(t)
	if !authLines() {
		t.Skip("COGEN_PG_AUTH is not 1: the server has no password logins (see .ci/dbservers)")
	}
	admin := cfg
	setup := func(co *stackful.Co) error {
		c, err := Connect(co, admin)
		if err != nil {
			return err
		}
		defer c.Close(co)
		for _, q := range []string{
			"DROP ROLE IF EXISTS cogen_password", "DROP ROLE IF EXISTS cogen_md5", "DROP ROLE IF EXISTS cogen_scram",
			"SET password_encryption = 'scram-sha-256'",
			"CREATE ROLE cogen_password LOGIN PASSWORD 'plain secret'",
			"CREATE ROLE cogen_scram LOGIN PASSWORD 'scram sécret'",
			"SET password_encryption = 'md5'",
			"CREATE ROLE cogen_md5 LOGIN PASSWORD 'md5 secret'",
		} {
			if _, err := c.Exec(co, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	}
	runStackful(t, setup)
	for _, m := range models {
		for _, u := range []struct{ user, password string }{
			{"cogen_password", "plain secret"}, {"cogen_md5", "md5 secret"}, {"cogen_scram", "scram sécret"},
		} {
			t.Run(m.name+"/"+u.user, func(t *testing.T) {
				for _, pw := range []string{u.password, "wrong"} {
					c := cfg
					c.User, c.Password, c.Database = u.user, pw, "postgres"
					var got string
					var err error
					f := newLoginFrame(c)
					m.run(t, func(co *stackful.Co) { got, err = login(co, c) }, f)
					if m.name == "stackless" {
						got, err = f.Result()
					}
					if pw == "wrong" {
						if Code(err) != "28P01" {
							t.Fatalf("a wrong password: %q %v, want SQLSTATE 28P01", got, err)
						}
					} else if err != nil || got != u.user {
						t.Fatalf("login: %q %v", got, err)
					}
				}
			})
		}
	}
}

// runStackful runs body in a coroutine of a new env.
func runStackful(t *testing.T, body func(co *stackful.Co) error) {
	t.Helper()
	var err error
	models[0].run(t, func(co *stackful.Co) { err = body(co) }, nil)
	if err != nil {
		t.Fatal(err)
	}
}

// TestTimeout: a query that outlasts Config.QueryTimeout fails with
// loop.ErrTimeout and breaks the conn.
func TestTimeout(t *testing.T) {
	cfg := serverConfig(t)
	runStackful(t, func(co *stackful.Co) error {
		c, err := Connect(co, cfg)
		if err != nil {
			return err
		}
		defer c.Close(co)
		c.cfg.QueryTimeout = 50 * time.Millisecond
		start := time.Now()
		_, err = c.Exec(co, "SELECT pg_sleep(2)")
		if !errors.Is(err, loop.ErrTimeout) || time.Since(start) > 1500*time.Millisecond {
			return fmt.Errorf("a 2 s query with a 50 ms timeout: %v after %v", err, time.Since(start))
		}
		if _, err := c.Exec(co, "SELECT 1"); !errors.Is(err, loop.ErrTimeout) || c.Err() == nil {
			return fmt.Errorf("the conn after a timeout is not broken: %v", err)
		}
		return nil
	})
}

func TestParseURL(t *testing.T) {
	cfg, err := ParseURL("postgres://u:p%40ss@localhost:6543/db?sslmode=disable&connect_timeout=3&application_name=x")
	if err != nil || cfg.Addr != "localhost:6543" || cfg.User != "u" || cfg.Password != "p@ss" || cfg.Database != "db" ||
		cfg.ConnectTimeout != 3*time.Second || cfg.Params["application_name"] != "x" {
		t.Fatalf("%+v %v", cfg, err)
	}
	for _, bad := range []string{"mysql://x", "postgres://h/db?sslmode=require", "postgres://h/db?connect_timeout=x"} {
		if _, err := ParseURL(bad); err == nil || !strings.HasPrefix(err.Error(), "pg: ") {
			t.Errorf("ParseURL(%q): %v", bad, err)
		}
	}
}

func authLines() bool { return os.Getenv("COGEN_PG_AUTH") == "1" }
