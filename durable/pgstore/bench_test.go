package pgstore

import (
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// BenchmarkCommit commits a checkpoint of one task with a snapshot of 256
// or 4096 random bytes, op after op, from one coroutine (one round trip each), and
// reports the WAL bytes the server wrote per commit (wal-B/op).
func BenchmarkCommit(b *testing.B) {
	for _, size := range []int{256, 4096} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			s := openTest(b)
			snap := make([]byte, size)
			rand.Read(snap) // the worst case: real frames compress (pglz, above 2 KiB)

			inCo(b, func(co *stackful.Co) {
				if err := s.Create(co, "t", "wf", snap); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Claim(co, "w", time.Minute, 1); err != nil {
					b.Fatal(err)
				}
				wal0 := walLSN(b, co, s)
				b.ResetTimer()
				for i := range b.N {
					snap[0] = byte(i)
					if err := s.Commit(co, "w", time.Minute, &durable.Commit{ID: "t", Seq: int64(i), State: durable.Running, Snapshot: snap}); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(walLSN(b, co, s)-wal0)/float64(b.N), "wal-B/op")
			})
		})
	}
}

// walLSN returns the server's current WAL position in bytes.
func walLSN(tb testing.TB, co *stackful.Co, s *Store) int64 {
	h, err := s.acquire(co, laneData)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.release(co, h)
	c := h.c
	st, err := c.Prepare(co, "pgstore_bench_wal", "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")
	if err != nil {
		tb.Fatal(err)
	}
	var rows pg.Rows
	if err := c.Queue(st); err == nil {
		err = c.Send(co)
	}
	if err == nil {
		err = c.Next(co, &rows)
	}
	if err != nil {
		tb.Fatal(err)
	}
	n, err := rows.Int(0, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
