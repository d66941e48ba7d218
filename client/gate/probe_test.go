package gate_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cogen-go/cogen/client/gate/internal/servers"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
	"github.com/redis/go-redis/v9"
)

// The probe, as a new user writes it: a stock go-redis client on
// conet conns (default options, maintenance notifications included), pool
// of 10, 10 coroutines x 100 SET+GET. Often it deadlocks: one coroutine
// waits for go-redis's sync.RWMutex that a suspended coroutine holds across
// a handshake. It runs in a child process, since that hang is for good;
// each run must either finish or print the stall report on stderr, never
// fall silent for probeSilence.
func TestRedisProbeReportsStall(t *testing.T) {
	addr := servers.Redis(t)
	if os.Getenv("COGEN_PROBE_CHILD") == "1" {
		runProbe(t, addr)
		return
	}
	completed, reported := 0, 0
	for run := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRedisProbeReportsStall$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "COGEN_PROBE_CHILD=1")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		// The child's -test.v output (its t.Error lines): read only after
		// Wait, and shown with a failure.
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(stderr)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		// The child prints a progress line every probeProgress pairs of
		// commands: silence, not the total time, is what a hang looks
		// like, so the bound is on the gap between lines (a slow run
		// under -race beside busy cores keeps printing). A silent child
		// gets SIGQUIT, and its goroutine dump is the failure's evidence.
		var report []string
		silence := time.NewTimer(probeSilence)
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				silence.Reset(probeSilence)
				if strings.HasPrefix(l, "stackful: stall:") || len(report) > 0 {
					report = append(report, l)
				}
				if len(report) > 12 {
					cmd.Process.Kill()
				}
			case <-silence.C:
				cmd.Process.Signal(syscall.SIGQUIT)
				var dump []string
				grace := time.After(10 * time.Second)
			collect:
				for {
					select {
					case l, ok := <-lines:
						if !ok {
							break collect
						}
						dump = append(dump, l)
					case <-grace:
						cmd.Process.Kill()
						break collect
					}
				}
				cmd.Wait()
				t.Fatalf("run %d: no report, no progress and no end for %v: hung silently; the child's output:\n%s\nits goroutines on SIGQUIT:\n%s",
					run, probeSilence, tail(stdout.String()), strings.Join(dump, "\n"))
			}
		}
		err = cmd.Wait()
		switch {
		case len(report) > 0:
			reported++
			r := strings.Join(report, "\n")
			if !strings.Contains(r, "blocked in sync.RWMutex") || !strings.Contains(r, "go-redis") {
				t.Errorf("run %d: report:\n%s", run, r)
			}
		case err == nil:
			completed++
		default:
			t.Fatalf("run %d: %v; the child's output:\n%s", run, err, tail(stdout.String()))
		}
	}
	t.Logf("%d runs completed, %d deadlocked and were reported", completed, reported)
}

// tail is the end of a child's output, enough for its last failures.
func tail(s string) string {
	if len(s) > 4096 {
		return "..." + s[len(s)-4096:]
	}
	return s
}

// probeProgress is how many SET+GET pairs a probe coroutine does between
// progress lines; probeSilence, how long the parent waits for a line.
const (
	probeProgress = 20
	probeSilence  = 10 * time.Second
)

func runProbe(t *testing.T, addr string) {
	var d conet.Dialer
	rc := redis.NewClient(&redis.Options{Addr: addr, Dialer: d.DialContext, PoolSize: 10})
	defer rc.Close()
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	done := 0
	ctx := context.Background()
	for i := range 10 {
		env.Create(func(co *stackful.Co) {
			co.EnableHook()
			defer func() { done++ }()
			for j := range 100 {
				k := fmt.Sprintf("probe:%d", i)
				if j%probeProgress == 0 {
					fmt.Fprintf(os.Stderr, "probe: coroutine %d at pair %d\n", i, j)
				}
				if err := rc.Set(ctx, k, j, 0).Err(); err != nil {
					t.Error(err)
					return
				}
				if v, err := rc.Get(ctx, k).Int(); err != nil || v != j {
					t.Errorf("GET %s: %d, %v", k, v, err)
					return
				}
			}
		}, nil).Resume()
	}
	env.Run(func() bool { return done == 10 })
}
