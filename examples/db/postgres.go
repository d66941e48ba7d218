package db

import (
	"fmt"

	"github.com/cogen-go/cogen/runtime/stackful/conet"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PgPoolConfig parses a postgres:// URL into a pgxpool config for a pool
// used from hooked coroutines of one env: conns from [conet.Dialer], so
// every query waits on the loop, and at most maxConns of them. Every use
// of the pool (from Acquire, or a query method of the pool, to the
// release of the conn and the end of its rows) must go through a cosync.Semaphore
// of maxConns: pgxpool waits in Go's scheduler when it is exhausted.
func PgPoolConfig(url string, maxConns int32) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("db: %w", err)
	}
	var d conet.Dialer
	cfg.ConnConfig.DialFunc = d.DialContext
	cfg.MaxConns = maxConns
	return cfg, nil
}
