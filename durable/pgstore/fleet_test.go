package pgstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// The worker command, built once per test binary (go build into a
// directory TestMain removes).
var (
	workerOnce sync.Once
	workerBin  string
	workerErr  error
	workerDir  string
)

func buildWorker(t testing.TB) string {
	t.Helper()
	workerOnce.Do(func() {
		workerDir, workerErr = os.MkdirTemp("", "pgstore-worker")
		if workerErr != nil {
			return
		}
		workerBin = filepath.Join(workerDir, "durworker")
		out, err := exec.Command("go", "build", "-o", workerBin, "./cmd/durworker").CombinedOutput()
		if err != nil {
			workerErr = fmt.Errorf("go build ./cmd/durworker: %v\n%s", err, out)
		}
	})
	if workerErr != nil {
		t.Fatal(workerErr)
	}
	return workerBin
}

// The worker command built with the tag pgstore_changed (package
// changeflow's other Count), once per test binary, beside the other.
var (
	changedOnce sync.Once
	changedBin  string
	changedErr  error
)

func buildChangedWorker(t testing.TB) string {
	t.Helper()
	buildWorker(t) // makes workerDir
	changedOnce.Do(func() {
		changedBin = filepath.Join(workerDir, "durworker-changed")
		out, err := exec.Command("go", "build", "-tags", "pgstore_changed", "-o", changedBin, "./cmd/durworker").CombinedOutput()
		if err != nil {
			changedErr = fmt.Errorf("go build -tags pgstore_changed ./cmd/durworker: %v\n%s", err, out)
		}
	})
	if changedErr != nil {
		t.Fatal(changedErr)
	}
	return changedBin
}

// A fleet is a set of worker processes on one store, each slot restarted
// by the test as it likes.
type fleet struct {
	t      testing.TB
	prefix string
	bin    string
	args   []string
	logDir string

	stable bool // a restarted slot keeps its name (see TestRecoverySameName)

	mu      sync.Mutex
	procs   []*proc
	starts  int
	exited  []string // unexpected exits (not killed by the test)
	waiters sync.WaitGroup
}

// newFleet starts n workers named prefix+slot+"-"+start number.
func newFleet(t testing.TB, prefix string, n int, args ...string) *fleet {
	return newFleetOf(t, buildWorker(t), prefix, n, args...)
}

// newFleetOf is newFleet with the worker command bin.
func newFleetOf(t testing.TB, bin, prefix string, n int, args ...string) *fleet {
	logDir, err := os.MkdirTemp("", "pgstore-fleet")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the workers' logs are in %s", logDir)
		} else {
			os.RemoveAll(logDir)
		}
	})
	f := &fleet{t: t, prefix: prefix, bin: bin, args: args, logDir: logDir, procs: make([]*proc, n)}
	for i := range n {
		f.start(i)
	}
	t.Cleanup(f.stop)
	return f
}

type proc struct {
	cmd  *exec.Cmd
	name string
	done chan struct{} // closed once the process has been reaped
}

// start starts worker slot i (its earlier process must be gone); it may
// be called from any goroutine (a failure is a test error).
func (f *fleet) start(i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts++
	name := fmt.Sprintf("%s%d-%d", f.prefix, i, f.starts)
	if f.stable {
		name = fmt.Sprintf("%s%d", f.prefix, i)
	}
	log, err := os.Create(filepath.Join(f.logDir, name+".log"))
	if err != nil {
		f.t.Error(err)
		return
	}
	cmd := exec.Command(f.bin, append([]string{"-name", name}, f.args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		f.t.Error(err)
		return
	}
	p := &proc{cmd: cmd, name: name, done: make(chan struct{})}
	f.procs[i] = p
	f.waiters.Add(1)
	go func() {
		defer f.waiters.Done()
		defer close(p.done)
		err := cmd.Wait()
		log.Close()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return
		}
		out, _ := os.ReadFile(log.Name())
		f.mu.Lock()
		f.exited = append(f.exited, fmt.Sprintf("%s: %v\n%s", name, err, tail(out, 2000)))
		f.mu.Unlock()
	}()
}

// name returns the worker name of slot i's current process.
func (f *fleet) name(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.procs[i].name
}

// kill kills slot i's process with SIGKILL and waits for it to be gone.
func (f *fleet) kill(i int) {
	f.mu.Lock()
	p := f.procs[i]
	f.mu.Unlock()
	if p == nil {
		return
	}
	p.cmd.Process.Kill()
	<-p.done
}

// failures returns the processes that exited on their own.
func (f *fleet) failures() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.exited...)
}

func (f *fleet) stop() {
	for i := range f.procs {
		f.kill(i)
	}
	f.waiters.Wait()
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
