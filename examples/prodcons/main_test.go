package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// The stackless run of libco's example_cond with three rounds. The first
// consumer drains the first round without waiting; after that each Signal
// wakes the consumer that has waited longest, so the rounds alternate.
func Example() {
	if err := run(os.Stdout, "stackless", 3, time.Millisecond, 1); err != nil {
		fmt.Println(err)
	}
	// Output:
	// [1] + add new data:1
	// [1] + add new data:2
	// [1] + add new data:3
	// [1] + add new data:4
	// [1] + add new data:5
	// start producer coroutine success
	// [2] - del data:1
	// [2] - del data:2
	// [2] - del data:3
	// [2] - del data:4
	// [2] - del data:5
	// start consumer coroutine success
	// [1] + add new data:6
	// [2] - del data:6
	// [1] + add new data:7
	// [1] + add new data:8
	// [1] + add new data:9
	// [1] + add new data:10
	// [1] + add new data:11
	// [3] - del data:7
	// [3] - del data:8
	// [3] - del data:9
	// [3] - del data:10
	// [3] - del data:11
}

// TestModelsAgree: the stackful coroutines and their hand-written stackless
// twins print the same lines for several seeds.
func TestModelsAgree(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		var stackless, stackful bytes.Buffer
		if err := run(&stackless, "stackless", 6, time.Millisecond, seed); err != nil {
			t.Fatal(err)
		}
		if err := run(&stackful, "stackful", 6, time.Millisecond, seed); err != nil {
			t.Fatal(err)
		}
		if stackless.String() != stackful.String() {
			t.Fatalf("seed %d: the models differ\nstackless:\n%s\nstackful:\n%s", seed, stackless.String(), stackful.String())
		}
	}
}

var line = regexp.MustCompile(`^\[(\d)\] ([+-]) (?:add new|del) data:(\d+)$`)

// TestQueueInvariants: every item is added once and consumed once, in
// order, before the next round adds more; each round is consumed by a
// single consumer, and from the second one on the consumers take turns.
func TestQueueInvariants(t *testing.T) {
	const rounds = 8
	var out bytes.Buffer
	start := time.Now()
	if err := run(&out, "stackless", rounds, 2*time.Millisecond, 7); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < rounds*2*time.Millisecond {
		t.Fatalf("%d rounds with a 2ms pause took only %v", rounds, el)
	}
	added, consumed, pending := 0, 0, 0
	var roundConsumers []string
	lastConsumer := ""
	for _, l := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		m := line.FindSubmatch(l)
		if m == nil {
			continue // the two "start ... success" lines
		}
		id, _ := strconv.Atoi(string(m[3]))
		switch string(m[2]) {
		case "+":
			if string(m[1]) != "1" || id != added+1 {
				t.Fatalf("bad add line %q", l)
			}
			if pending == 0 {
				lastConsumer = "" // a new round
			}
			added++
			pending++
		case "-":
			if id != consumed+1 || pending == 0 {
				t.Fatalf("consumed %d out of order: %q", id, l)
			}
			if lastConsumer == "" {
				roundConsumers = append(roundConsumers, string(m[1]))
			} else if lastConsumer != string(m[1]) {
				t.Fatalf("round shared by consumers %s and %s", lastConsumer, m[1])
			}
			lastConsumer = string(m[1])
			consumed++
			pending--
		}
	}
	if added == 0 || consumed != added {
		t.Fatalf("added %d, consumed %d", added, consumed)
	}
	if len(roundConsumers) != rounds {
		t.Fatalf("%d rounds consumed, want %d: %v", len(roundConsumers), rounds, roundConsumers)
	}
	for i := 2; i < rounds; i++ {
		if roundConsumers[i] == roundConsumers[i-1] {
			t.Fatalf("consumers do not take turns: %v", roundConsumers)
		}
	}
}
