// Package pgserver starts a throwaway PostgreSQL server for the
// benchmarks' standalone runs (bench/tfb's tfb command and
// bench/durablepg), when no server URL is given: initdb in a temporary
// directory, 127.0.0.1 only, trust authentication. Tests use the server
// .ci/dbservers starts instead (COGEN_PG_URL).
package pgserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// A Server is a throwaway PostgreSQL server.
type Server struct {
	URL string
	dir string
	ctl []string // pg_ctl with its data directory, run as the owner
}

// ErrNotInstalled is Start's error when no PostgreSQL is installed.
var ErrNotInstalled = errors.New("pgserver: no PostgreSQL: set COGEN_PG_URL or install postgresql")

// Start starts a throwaway server from the installed PostgreSQL (Debian's
// /usr/lib/postgresql/N/bin), as the postgres user when run as root
// (initdb refuses root), with the settings given as name=value (each
// passed as -c name=value, after listen_addresses, port, socket directory
// and max_connections=300). ErrNotInstalled if none is installed.
func Start(settings ...string) (*Server, error) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		} else {
			return nil, ErrNotInstalled
		}
	}
	slices.Sort(bins)
	bin := filepath.Dir(bins[len(bins)-1])
	dir, err := os.MkdirTemp("", "pgserver-")
	if err != nil {
		return nil, err
	}
	p := &Server{dir: dir}
	var run []string
	if os.Geteuid() == 0 {
		owner := "postgres"
		u, err := user.Lookup(owner)
		if err != nil {
			owner = "nobody"
			if u, err = user.Lookup(owner); err != nil {
				os.RemoveAll(dir)
				return nil, fmt.Errorf("pgserver: running as root and no postgres or nobody user for initdb: %w", err)
			}
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		run = []string{"runuser", "-u", owner, "--"}
	}
	data := filepath.Join(dir, "data")
	initdb := append(slices.Clone(run), filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
	if out, err := command(initdb).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgserver: initdb: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p.ctl = append(slices.Clone(run), filepath.Join(bin, "pg_ctl"), "-D", data, "-w", "-s")
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c max_connections=300", port, dir)
	for _, kv := range settings {
		opts += " -c " + kv
	}
	start := append(slices.Clone(p.ctl), "-l", filepath.Join(dir, "log"), "-o", opts, "start")
	if out, err := command(start).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgserver: pg_ctl start: %v\n%s%s", err, out, log)
	}
	p.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return p, nil
}

// Stop stops the server and removes its directory.
func (p *Server) Stop() error {
	out, err := command(append(slices.Clone(p.ctl), "-m", "fast", "stop")).CombinedOutput()
	if err != nil {
		err = fmt.Errorf("pgserver: pg_ctl stop: %v\n%s", err, out)
	}
	return errors.Join(err, os.RemoveAll(p.dir))
}

func command(argv []string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.WaitDelay = 30 * time.Second
	return cmd
}

// freePort returns a port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
