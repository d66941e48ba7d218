package tfb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// The TechEmpower database: a World table of WorldRows rows with random
// numbers in 1..10000, and a Fortune table of 12 messages.
const (
	WorldRows = 10000

	worldSQL   = "SELECT id, randomnumber FROM world WHERE id = $1"
	updateSQL  = "UPDATE world SET randomnumber = $2 WHERE id = $1"
	fortuneSQL = "SELECT id, message FROM fortune"
)

// Fortunes are the Fortune table's rows, ids 1 to 12, as TechEmpower's
// setup inserts them (markup and non-ASCII text included: the fortunes test
// checks the escaping and the encoding).
var Fortunes = []string{
	"fortune: No such file or directory",
	"A computer scientist is someone who fixes things that aren't broken.",
	"After enough decimal places, nobody gives a damn.",
	"A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1",
	"A computer program does what you tell it to do, not what you want it to do.",
	"Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen",
	"Any program that runs right is obsolete.",
	"A list is only as strong as its weakest link. — Donald Knuth",
	"Feature: A bug with seniority.",
	"Computers make very fast, very accurate mistakes.",
	`<script>alert("This should not be displayed in a browser alert box.");</script>`,
	"フレームワークのベンチマーク",
}

// AddedFortune is the fortune the fortunes test adds at request time.
const AddedFortune = "Additional fortune added at request time."

// Setup creates the world and fortune tables in the database at url when
// they are missing or incomplete (on a fresh PostgreSQL: a few hundred ms).
func Setup(ctx context.Context, url string) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("tfb: setup: %w", err)
	}
	defer c.Close(ctx)
	var worlds, fortunes int
	err = c.QueryRow(ctx, `SELECT (SELECT count(*) FROM world), (SELECT count(*) FROM fortune)`).Scan(&worlds, &fortunes)
	if err == nil && worlds == WorldRows && fortunes == len(Fortunes) {
		return nil
	}
	for _, q := range []string{
		"DROP TABLE IF EXISTS world, fortune",
		"CREATE TABLE world (id integer PRIMARY KEY, randomnumber integer NOT NULL DEFAULT 0)",
		"CREATE TABLE fortune (id integer PRIMARY KEY, message varchar(2048) NOT NULL)",
		"INSERT INTO world (id, randomnumber) SELECT i, 1 + floor(random() * 10000)::int FROM generate_series(1, " + strconv.Itoa(WorldRows) + ") i",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("tfb: setup: %s: %w", q, err)
		}
	}
	for i, m := range Fortunes {
		if _, err := c.Exec(ctx, "INSERT INTO fortune (id, message) VALUES ($1, $2)", i+1, m); err != nil {
			return fmt.Errorf("tfb: setup: %w", err)
		}
	}
	return nil
}

// randomID returns a random world id, 1 to WorldRows.
func randomID() int64 { return 1 + rand.Int64N(WorldRows) }

// randomIDs fills ids with random world ids, sorted so that the updates
// test locks rows in the same order in every request (concurrent
// transactions that update the same rows in different orders deadlock).
func randomIDs(ids []int64, sorted bool) {
	for i := range ids {
		ids[i] = randomID()
	}
	if sorted {
		for i := 1; i < len(ids); i++ { // insertion sort: at most 500
			for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
				ids[j], ids[j-1] = ids[j-1], ids[j]
			}
		}
	}
}

// QueriesParam reads the queries parameter of a request URI as the
// multiple-queries and updates tests require: absent or not an integer is
// 1, and the count is clamped to 1..500.
func QueriesParam(uri []byte) int {
	const key = "queries="
	n := 1
	for i := 0; i+len(key) <= len(uri); i++ {
		if string(uri[i:i+len(key)]) == key && (i == 0 || uri[i-1] == '?' || uri[i-1] == '&') {
			v := uri[i+len(key):]
			end := 0
			for end < len(v) && v[end] != '&' {
				end++
			}
			if x, err := strconv.Atoi(string(v[:end])); err == nil {
				n = x
			}
			break
		}
	}
	return min(max(n, 1), 500)
}
