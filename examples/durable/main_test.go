package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

const childEnv = "DURABLE_TEST_CHILD_DIR"

// TestMain runs the program itself when the test starts the test binary as
// a child with childEnv set.
func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		if err := run(dir, workflows, 1); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const workflows = 12

func child(dir string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	cmd.Stderr = os.Stderr
	return cmd
}

// results reads the state directory: the done files by workflow, and the
// names of any other file left (checkpoints, duplicates).
func results(t *testing.T, dir string) (map[string]string, []string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	done := map[string]string{}
	var other []string
	for _, e := range ents {
		if filepath.Ext(e.Name()) != ".done" {
			other = append(other, e.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		done[e.Name()] = string(b)
	}
	return done, other
}

// TestKill9: killed with SIGKILL at random points and restarted until it
// exits by itself, the program completes every workflow exactly once, with
// the trace of an uninterrupted run.
func TestKill9(t *testing.T) {
	ref := t.TempDir()
	if err := child(ref).Run(); err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	want, left := results(t, ref)
	if len(want) != workflows || len(left) != 0 {
		t.Fatalf("uninterrupted run: %d done, left %v", len(want), left)
	}

	seed := time.Now().UnixNano()
	t.Logf("kill seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for round := range 4 {
		kill9Round(t, rng, round, want)
	}
}

// kill9Round runs the program in a fresh directory, killing it at random
// points up to 40 ms after its start, until a run finishes.
func kill9Round(t *testing.T, rng *rand.Rand, round int, want map[string]string) {
	dir := t.TempDir()
	kills, restored := 0, 0
	deadline := time.Now().Add(60 * time.Second)
	for {
		if ckpts, _ := filepath.Glob(filepath.Join(dir, "*.ckpt")); len(ckpts) > 0 {
			restored++
		}
		if time.Now().After(deadline) {
			t.Fatalf("not finished after %d kills", kills)
		}
		cmd := child(dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("run after %d kills: %v", kills, err)
			}
		case <-time.After(time.Duration(rng.IntN(40000)) * time.Microsecond):
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
		t.Errorf("files left after the last run: %v", left)
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
	if kills == 0 || restored == 0 {
		t.Errorf("round %d: %d runs killed, %d restored from checkpoints: the test did not test", round, kills, restored)
	}
	t.Logf("round %d: %d kills (%d runs restored from checkpoints), then a run to the end", round, kills, restored)
}
