package tfb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A LoadConfig describes one load window: Conns keep-alive connections,
// each sending Pipeline GET requests of Path at a time (one write) and
// reading their answers, for Warmup and then Duration, which is measured.
type LoadConfig struct {
	Addr     string
	Path     string
	Conns    int
	Pipeline int
	Warmup   time.Duration
	Duration time.Duration
}

// A LoadResult is what a window measured: the requests answered in it,
// and the latency of each (from the write of its batch to its answer).
type LoadResult struct {
	Requests int64
	Elapsed  time.Duration
	P50, P99 time.Duration
}

// Load runs a load window. Every answer must be a 200 with a
// Content-Length; the first other answer or error ends the run with it.
func Load(cfg LoadConfig) (LoadResult, error) {
	if cfg.Pipeline <= 0 {
		cfg.Pipeline = 1
	}
	req := []byte("GET " + cfg.Path + " HTTP/1.1\r\nHost: " + cfg.Addr + "\r\nUser-Agent: tfbload\r\n\r\n")
	batch := bytes.Repeat(req, cfg.Pipeline)
	var (
		measuring, stop atomic.Bool
		wg              sync.WaitGroup
		mu              sync.Mutex
		firstErr        error
		lat             = make([][]time.Duration, cfg.Conns)
	)
	conns := make([]net.Conn, 0, cfg.Conns)
	for range cfg.Conns {
		c, err := net.DialTimeout("tcp", cfg.Addr, 10*time.Second)
		if err != nil {
			for _, c := range conns {
				c.Close()
			}
			return LoadResult{}, fmt.Errorf("tfb: load: %w", err)
		}
		conns = append(conns, c)
	}
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			br := bufio.NewReaderSize(c, 64<<10)
			mine := make([]time.Duration, 0, 1024)
			for !stop.Load() {
				t0 := time.Now()
				err := func() error {
					if _, err := c.Write(batch); err != nil {
						return err
					}
					for range cfg.Pipeline {
						if err := readAnswer(br); err != nil {
							return err
						}
						if measuring.Load() {
							mine = append(mine, time.Since(t0))
						}
					}
					return nil
				}()
				if err != nil {
					if !stop.Load() {
						mu.Lock()
						if firstErr == nil {
							firstErr = fmt.Errorf("tfb: load %s: %w", cfg.Path, err)
						}
						mu.Unlock()
						stop.Store(true)
					}
					break
				}
			}
			lat[i] = mine
		}()
	}
	time.Sleep(cfg.Warmup)
	measuring.Store(true)
	t0 := time.Now()
	time.Sleep(cfg.Duration)
	measuring.Store(false)
	elapsed := time.Since(t0)
	stop.Store(true)
	for _, c := range conns {
		c.SetDeadline(time.Now().Add(5 * time.Second))
	}
	wg.Wait()
	if firstErr != nil {
		return LoadResult{}, firstErr
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := LoadResult{Requests: int64(len(all)), Elapsed: elapsed}
	if len(all) > 0 {
		r.P50, r.P99 = all[len(all)/2], all[len(all)*99/100]
	}
	return r, nil
}

// readAnswer reads one response: a 200 with a Content-Length body.
func readAnswer(br *bufio.Reader) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return fmt.Errorf("answer %q", bytes.TrimSpace(line))
	}
	length := -1
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
				return fmt.Errorf("Content-Length %q", v)
			}
		}
	}
	if length < 0 {
		return errors.New("an answer without Content-Length")
	}
	_, err = br.Discard(length)
	return err
}

// ProcessCPU returns the user and system CPU time pid has used, from
// /proc/pid/stat (in clock ticks of 10 ms).
func ProcessCPU(pid int) (time.Duration, error) {
	own, _, err := processTimes(pid)
	return own, err
}

// processTimes returns the CPU time pid has used and the CPU time of its
// children that it has waited for.
func processTimes(pid int) (own, children time.Duration, err error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, err
	}
	// The fields after the command name, which is in parentheses: utime,
	// stime, cutime and cstime are fields 14 to 17 of the line.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("tfb: /proc/%d/stat: %q", pid, b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("tfb: /proc/%d/stat: %q", pid, b)
	}
	var t [4]int64
	for k := range t {
		if t[k], err = strconv.ParseInt(f[11+k], 10, 64); err != nil {
			return 0, 0, fmt.Errorf("tfb: /proc/%d/stat: %q", pid, b)
		}
	}
	const tick = 10 * time.Millisecond
	return time.Duration(t[0]+t[1]) * tick, time.Duration(t[2]+t[3]) * tick, nil
}

// DatabaseCPU returns the CPU time used by every PostgreSQL process of the
// machine (the postmaster, its background workers and the backends), those
// that ended included: a backend that ends moves its time into the
// postmaster's children's time.
func DatabaseCPU() time.Duration {
	ents, _ := os.ReadDir("/proc")
	var total time.Duration
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		if own, children, err := processTimes(pid); err == nil {
			total += own + children
		}
	}
	return total
}

// ProcessIO returns the read and write system calls process pid has made
// (syscr plus syscw of /proc/pid/io: read(2), write(2) and their vector
// and socket forms); I/O through io_uring makes none.
func ProcessIO(pid int) (int64, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "io"))
	if err != nil {
		return 0, err
	}
	var n int64
	found := 0
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if ok && (k == "syscr" || k == "syscw") {
			c, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("tfb: /proc/%d/io: %q", pid, line)
			}
			n += c
			found++
		}
	}
	if found != 2 {
		return 0, fmt.Errorf("tfb: /proc/%d/io: no syscr and syscw", pid)
	}
	return n, nil
}
