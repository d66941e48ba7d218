package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

const childEnv = "DURABLE_TEST_CHILD_DIR"

// TestMain runs the program itself when the test starts the test binary as
// a child with childEnv set.
func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Stdout.WriteString("running\n") // the test times its kills from here
		if err := run(dir, workflows, 1); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const workflows = 12

// startChild starts the program on dir and waits until it runs (past the
// test binary's start-up, which under -race and load dwarfs the work);
// exited receives the result of Wait.
func startChild(t *testing.T, dir string) (cmd *exec.Cmd, exited chan error) {
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	// A race-enabled child would sleep 1 s at exit by default, which the
	// window of kills (the reference run's duration) would then be mostly.
	cmd.Env = append(os.Environ(), childEnv+"="+dir, "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "running\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q", line)
	}
	exited = make(chan error, 1)
	go func() {
		io.Copy(io.Discard, out)
		exited <- cmd.Wait()
	}()
	return cmd, exited
}

// results reads the store in dir (no process holds it): the results of
// the workflows that are done, by ID, and a line for each other task or
// for one left leased.
func results(t *testing.T, dir string) (map[string]string, []string) {
	st, err := durable.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	done := map[string]string{}
	var other []string
	err = durable.Do(func(co *stackful.Co) error {
		for i := range workflows {
			in, err := st.Get(co, wfID(i))
			switch {
			case errors.Is(err, durable.ErrNotFound):
				continue
			case err != nil:
				return err
			case in.State == durable.Done && in.Owner == "":
				done[string(in.ID)] = string(in.Result)
			default:
				other = append(other, fmt.Sprintf("%s: %s seq %d owner %q", in.ID, in.State, in.Seq, in.Owner))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return done, other
}

// checkpointed reports whether the store in dir holds a workflow that has
// committed a checkpoint and not finished: the next run resumes it.
func checkpointed(t *testing.T, dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "VERSION")); err != nil {
		return false // no run has opened it yet
	}
	st, err := durable.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	found := false
	durable.Do(func(co *stackful.Co) error {
		for i := range workflows {
			if in, err := st.Get(co, wfID(i)); err == nil && in.Seq > 0 && !in.State.Terminal() {
				found = true
			}
		}
		return nil
	})
	return found
}

// TestKill9: killed with SIGKILL at random points and restarted until it
// exits by itself, the program completes every workflow exactly once, with
// the trace of an uninterrupted run.
func TestKill9(t *testing.T) {
	ref := t.TempDir()
	_, exited := startChild(t, ref)
	start := time.Now()
	if err := <-exited; err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	// Kills fall anywhere in a run: up to the uninterrupted run's duration
	// after the child says it runs.
	window := time.Since(start)
	want, left := results(t, ref)
	if len(want) != workflows || len(left) != 0 {
		t.Fatalf("uninterrupted run: %d done, left %v", len(want), left)
	}

	seed := time.Now().UnixNano()
	t.Logf("kill seed %d, kills up to %v after a start", seed, window)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	// At least 4 rounds, and as many more as it takes for 8 runs to have
	// been restored from checkpoints left by a killed one.
	kills, restored := 0, 0
	began := time.Now()
	for round := 0; round < 4 || restored < 8; round++ {
		if time.Since(began) > 90*time.Second {
			t.Fatalf("%d rounds: %d kills, %d runs restored from checkpoints", round, kills, restored)
		}
		k, r := kill9Round(t, rng, round, window, want)
		kills, restored = kills+k, restored+r
	}
}

// kill9Round runs the program in a fresh directory, killing it at random
// points up to window after its start, until a run finishes.
func kill9Round(t *testing.T, rng *rand.Rand, round int, window time.Duration, want map[string]string) (kills, restored int) {
	dir := t.TempDir()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if checkpointed(t, dir) {
			restored++
		}
		if time.Now().After(deadline) {
			t.Fatalf("not finished after %d kills", kills)
		}
		cmd, exited := startChild(t, dir)
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("run after %d kills: %v", kills, err)
			}
		case <-time.After(time.Duration(rng.Int64N(int64(window)))):
			cmd.Process.Kill() // SIGKILL
			if err := <-exited; err == nil {
				break // it had finished just before the kill
			}
			kills++
			continue
		}
		break
	}
	got, left := results(t, dir)
	if len(left) != 0 {
		t.Errorf("tasks left after the last run: %v", left)
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	}) {
		if got[name] != want[name] {
			t.Errorf("%s after %d kills:\n%s\nwant:\n%s", name, kills, got[name], want[name])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d workflows done, want %d", len(got), len(want))
	}
	t.Logf("round %d: %d kills (%d runs restored from checkpoints), then a run to the end", round, kills, restored)
	return kills, restored
}

// TestLeftoverTemporaries: a process killed while writing a record
// leaves a partial temporary file in the store's tmp directory; the next
// run removes it and completes every workflow.
func TestLeftoverTemporaries(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tmp", "17"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, exited := startChild(t, dir)
	if err := <-exited; err != nil {
		t.Fatalf("run: %v", err)
	}
	got, left := results(t, dir)
	if len(got) != workflows || len(left) != 0 {
		t.Errorf("%d done, left %v", len(got), left)
	}
	if tmps, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}
