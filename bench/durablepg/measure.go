package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// A probe measures the PostgreSQL server around a load: its process tree's
// CPU, its WAL position and the size of a schema's tables. It holds one
// pgx connection of its own, used only before and after the load.
type probe struct {
	conn       *pgx.Conn
	postmaster int // 0: the server's CPU is not readable (another host, no data_directory)
}

func newProbe(ctx context.Context, url string) (*probe, error) {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("probe: connecting: %w", err)
	}
	p := &probe{conn: c}
	var dir string
	if err := c.QueryRow(ctx, "SELECT current_setting('data_directory')").Scan(&dir); err == nil {
		if b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid")); err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			p.postmaster, _ = strconv.Atoi(strings.TrimSpace(line))
		}
	}
	return p, nil
}

func (p *probe) close() { p.conn.Close(context.Background()) }

// A sample is the server's state at one time.
type sample struct {
	t      time.Time
	cpu    float64 // seconds of CPU of the server's process tree; -1 if unknown
	wal    int64   // pg_current_wal_lsn in bytes
	tables int64   // bytes of the schema's tables, indexes and TOAST
}

func (p *probe) sample(ctx context.Context, schema string) (sample, error) {
	s := sample{t: time.Now(), cpu: -1}
	var lsn string
	if err := p.conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		return s, fmt.Errorf("probe: wal lsn: %w", err)
	}
	hi, lo, _ := strings.Cut(lsn, "/")
	h, _ := strconv.ParseInt(hi, 16, 64)
	l, _ := strconv.ParseInt(lo, 16, 64)
	s.wal = h<<32 | l
	if err := p.conn.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`, schema).Scan(&s.tables); err != nil {
		return s, fmt.Errorf("probe: table sizes: %w", err)
	}
	if p.postmaster != 0 {
		s.cpu = treeCPU(p.postmaster)
	}
	return s, nil
}

// checkpoint forces a checkpoint, so that every load starts with the
// same full-page-write state.
func (p *probe) checkpoint(ctx context.Context) error {
	_, err := p.conn.Exec(ctx, "CHECKPOINT")
	return err
}

// dropSchema drops schema and everything in it.
func (p *probe) dropSchema(ctx context.Context, schema string) error {
	_, err := p.conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}

// clockTick is USER_HZ, the unit of /proc/<pid>/stat's times (100 on
// every Linux architecture Go runs on).
const clockTick = 100

// treeCPU returns the CPU seconds of the server: the postmaster's own and
// its reaped children's (backends that exited), plus each live child's.
func treeCPU(postmaster int) float64 {
	ents, _ := os.ReadDir("/proc")
	var ticks int64
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := procStat(pid)
		if len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		switch {
		case pid == postmaster:
			for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
				v, _ := strconv.ParseInt(f[i], 10, 64)
				ticks += v
			}
		case ppid == postmaster:
			for _, i := range []int{11, 12} {
				v, _ := strconv.ParseInt(f[i], 10, 64)
				ticks += v
			}
		}
	}
	return float64(ticks) / clockTick
}

// procStat returns the fields of /proc/pid/stat after the command name:
// f[0] is the state (field 3 of proc(5)), f[1] the ppid, f[11] utime.
func procStat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// selfCPU returns this process's user and system CPU seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// count runs a query returning one count.
func (p *probe) count(ctx context.Context, query string) (int, error) {
	var n int
	err := p.conn.QueryRow(ctx, query).Scan(&n)
	return n, err
}

// xacts returns the transactions ended in the database so far (committed
// or rolled back)
// (pg_stat_database, as the backends have reported them), read in a fresh
// snapshot of the statistics.
func (p *probe) xacts(ctx context.Context) (int64, error) {
	if _, err := p.conn.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		return 0, err
	}
	var n int64
	err := p.conn.QueryRow(ctx, "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()").Scan(&n)
	return n, err
}
