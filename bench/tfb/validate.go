package tfb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Validate checks the answers of the server at addr to the six tests
// against TechEmpower's requirements, with the database at url as the
// reference: headers (Server, Date, Content-Type, Content-Length), bodies,
// the row counts of the queries parameter's edge values, rows that exist
// with the values the database has, the fortunes page (the added fortune,
// the order, the escaping, the encoding), and updates that the database
// shows afterwards. It returns every problem found.
func Validate(addr, url string) []error {
	ctx := context.Background()
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		return []error{err}
	}
	defer db.Close(ctx)
	v := &validator{addr: addr, db: db, client: &http.Client{Timeout: 10 * time.Second}}
	v.plaintext()
	v.json()
	v.single()
	for _, q := range []struct {
		param string
		n     int
	}{{"", 1}, {"foo", 1}, {"0", 1}, {"1", 1}, {"20", 20}, {"500", 500}, {"501", 500}} {
		v.multiple("/queries?queries="+q.param, q.n, false)
		v.multiple("/updates?queries="+q.param, q.n, true)
	}
	v.multiple("/queries", 1, false)
	v.fortunes()
	return v.errs
}

type validator struct {
	addr   string
	db     *pgx.Conn
	client *http.Client
	errs   []error
}

func (v *validator) errorf(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf(format, args...))
}

// get fetches path and checks the headers every test requires.
func (v *validator) get(path, ctype string) []byte {
	resp, err := v.client.Get("http://" + v.addr + path)
	if err != nil {
		v.errorf("GET %s: %v", path, err)
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		v.errorf("GET %s: %v", path, err)
		return nil
	}
	if resp.StatusCode != 200 {
		v.errorf("GET %s: status %d: %s", path, resp.StatusCode, body)
		return nil
	}
	for _, h := range []string{"Server", "Date"} {
		if resp.Header.Get(h) == "" {
			v.errorf("GET %s: no %s header", path, h)
		}
	}
	if got := resp.Header.Get("Content-Type"); !strings.EqualFold(strings.ReplaceAll(got, " ", ""), strings.ReplaceAll(ctype, " ", "")) {
		v.errorf("GET %s: Content-Type %q, want %q", path, got, ctype)
	}
	if resp.ContentLength != int64(len(body)) {
		v.errorf("GET %s: Content-Length %d for %d bytes (chunked answers are not allowed)", path, resp.ContentLength, len(body))
	}
	return body
}

func (v *validator) plaintext() {
	if b := v.get("/plaintext", ContentText); b != nil && string(b) != HelloWorld {
		v.errorf("/plaintext: %q", b)
	}
}

func (v *validator) json() {
	b := v.get("/json", ContentJSON)
	var m map[string]any
	if b != nil && (json.Unmarshal(b, &m) != nil || len(m) != 1 || m["message"] != HelloWorld) {
		v.errorf("/json: %s", b)
	}
}

// worldRow returns the World row id of the database.
func (v *validator) worldRow(id int64) (int64, error) {
	var n int64
	err := v.db.QueryRow(context.Background(), "SELECT randomnumber FROM world WHERE id = $1", id).Scan(&n)
	return n, err
}

// checkWorld checks a world object of an answer: id in range, and (for a
// read) the database's random number.
func (v *validator) checkWorld(path string, raw json.RawMessage, read bool) (World, bool) {
	var fields map[string]json.RawMessage
	var w struct {
		ID           int64 `json:"id"`
		RandomNumber int64 `json:"randomNumber"`
	}
	if json.Unmarshal(raw, &fields) != nil || len(fields) != 2 || fields["id"] == nil || fields["randomNumber"] == nil || json.Unmarshal(raw, &w) != nil {
		v.errorf("%s: %s is not {\"id\":..,\"randomNumber\":..}", path, raw)
		return World{}, false
	}
	if w.ID < 1 || w.ID > WorldRows || w.RandomNumber < 1 || w.RandomNumber > 10000 {
		v.errorf("%s: %s out of range", path, raw)
		return World{}, false
	}
	if read {
		if n, err := v.worldRow(w.ID); err != nil || n != w.RandomNumber {
			v.errorf("%s: %s, but the database has randomNumber %d (%v)", path, raw, n, err)
		}
	}
	return World{w.ID, w.RandomNumber}, true
}

func (v *validator) single() {
	if b := v.get("/db", ContentJSON); b != nil {
		v.checkWorld("/db", b, true)
	}
}

// multiple checks /queries or /updates: an array of n objects; for
// updates, the database has each object's number afterwards.
func (v *validator) multiple(path string, n int, update bool) {
	b := v.get(path, ContentJSON)
	if b == nil {
		return
	}
	var list []json.RawMessage
	if json.Unmarshal(b, &list) != nil || len(list) != n {
		v.errorf("%s: want an array of %d objects, got %.200s", path, n, b)
		return
	}
	// An update of a row that appears twice keeps the last number.
	last := map[int64]int64{}
	for _, raw := range list {
		w, ok := v.checkWorld(path, raw, !update)
		if !ok {
			return
		}
		last[w.ID] = w.RandomNumber
	}
	if update {
		for id, want := range last {
			if got, err := v.worldRow(id); err != nil || got != want {
				v.errorf("%s: row %d has randomNumber %d after the update, the answer said %d (%v)", path, id, got, want, err)
			}
		}
	}
}

var fortuneRow = regexp.MustCompile(`<tr><td>(\d+)</td><td>(.*?)</td></tr>`)

func (v *validator) fortunes() {
	b := v.get("/fortunes", ContentHTML)
	if b == nil {
		return
	}
	if !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !bytes.Contains(b, []byte("<table>")) {
		v.errorf("/fortunes: not the fortunes page: %.200s", b)
	}
	if bytes.Contains(b, []byte("<script>")) {
		v.errorf("/fortunes: a message is not escaped")
	}
	rows := fortuneRow.FindAllSubmatch(b, -1)
	var msgs []string
	for _, r := range rows {
		msgs = append(msgs, html.UnescapeString(string(r[2])))
	}
	want := append(slices.Clone(Fortunes), AddedFortune)
	slices.Sort(want)
	if !slices.Equal(msgs, want) {
		v.errorf("/fortunes: messages %q, want %q (sorted, the added one included)", msgs, want)
	}
}
