package pgstore

import (
	"fmt"
	"strings"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// schemaVersion is the version the migrations below reach.
const schemaVersion = 2

// migrations[i] takes the schema from version i to i+1; "S." stands for
// the store's schema (quoted). A migration is never edited once released:
// a change is a new entry.
var migrations = []string{
	`CREATE TABLE S.tasks (
		id          text PRIMARY KEY,
		name        text NOT NULL,
		state       text NOT NULL,
		snapshot    bytea,
		seq         bigint NOT NULL DEFAULT 0,
		due         timestamptz,
		wait_name   text,
		owner       text,
		lease_until timestamptz,
		result      bytea,
		error       text,
		created     timestamptz NOT NULL DEFAULT now(),
		updated     timestamptz NOT NULL DEFAULT now()
	);
	CREATE INDEX tasks_due ON S.tasks (due) WHERE state IN ('running', 'sleeping', 'waiting');
	CREATE TABLE S.signals (
		id      bigserial PRIMARY KEY,
		task_id text NOT NULL,
		name    text NOT NULL,
		value   bytea,
		sent_at timestamptz NOT NULL DEFAULT now()
	);
	CREATE INDEX signals_task ON S.signals (task_id, name, id);`,

	// 2: claims scan the free tasks and the expired leases apart, never
	// the tasks that live leases hold.
	`DROP INDEX S.tasks_due;
	CREATE INDEX tasks_free ON S.tasks (due)
		WHERE state IN ('running', 'sleeping', 'waiting') AND (owner IS NULL OR lease_until IS NULL);
	CREATE INDEX tasks_leased ON S.tasks (lease_until)
		WHERE state IN ('running', 'sleeping', 'waiting') AND owner IS NOT NULL;`,
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// sqlIn replaces the "S." placeholders of a statement with the schema.
func sqlIn(schema, sql string) string {
	return strings.ReplaceAll(sql, "S.", quoteIdent(schema)+".")
}

// migrate creates the schema and brings it to schemaVersion, in one
// transaction under an advisory lock keyed by the schema's name, so that
// workers starting together run each migration once: the first takes the
// lock and migrates, the others wait for it and then find the version
// current. A schema newer than this package's is refused.
func migrate(co *stackful.Co, c *pg.Conn, schema string) error {
	return migrateTo(co, c, schema, schemaVersion)
}

// migrateTo is migrate up to version (the tests start from older ones).
func migrateTo(co *stackful.Co, c *pg.Conn, schema string, version int) error {
	q := quoteIdent(schema)
	lit := "'" + strings.ReplaceAll(schema, "'", "''") + "'"
	var b strings.Builder
	b.WriteString("BEGIN;\n")
	fmt.Fprintf(&b, "SELECT pg_advisory_xact_lock(hashtext('cogen/durable/pgstore/' || %s));\n", lit)
	fmt.Fprintf(&b, "CREATE SCHEMA IF NOT EXISTS %s;\n", q)
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s.schema_version (version int NOT NULL);\n", q)
	fmt.Fprintf(&b, "INSERT INTO %s.schema_version SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM %s.schema_version);\n", q, q)
	// The migrations not applied yet run from a DO block that reads the
	// version under the lock.
	b.WriteString("DO $cogen$ DECLARE v int; BEGIN\n")
	fmt.Fprintf(&b, "SELECT version INTO v FROM %s.schema_version;\n", q)
	fmt.Fprintf(&b, "IF v > %d THEN RAISE EXCEPTION 'pgstore: schema %%: version %% is newer than this library''s (%d)', %s, v; END IF;\n",
		version, version, lit)
	for i, m := range migrations[:version] {
		fmt.Fprintf(&b, "IF v < %d THEN\nEXECUTE %s;\nEND IF;\n", i+1, dollarQuote(sqlIn(schema, m)))
	}
	fmt.Fprintf(&b, "UPDATE %s.schema_version SET version = %d;\n", q, version)
	b.WriteString("END $cogen$;\nCOMMIT;")
	if _, err := c.Exec(co, b.String()); err != nil {
		if c.Err() == nil && c.TxStatus() != 'I' {
			c.Exec(co, "ROLLBACK")
		}
		return fmt.Errorf("pgstore: migrating schema %s: %w", schema, err)
	}
	return nil
}

// dollarQuote quotes s as a dollar-quoted string literal whose tag does
// not occur in s.
func dollarQuote(s string) string {
	tag := "$m$"
	for i := 0; strings.Contains(s, tag); i++ {
		tag = fmt.Sprintf("$m%d$", i)
	}
	return tag + s + tag
}
