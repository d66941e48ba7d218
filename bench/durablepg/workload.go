package main

// The workload both engines run: a workflow of n steps, each a small
// computation followed by a checkpoint. Step i of the workflow with seed s
// turns h into mix(h + i); h starts at s. Both engines return the final h,
// and each run's xor of all results is compared between the engines.

// mixRounds is the step's computation: a few dozen multiply-xorshift
// rounds (about 100 ns), small beside a checkpoint.
const mixRounds = 64

// mix is the step's computation.
func mix(h uint64) uint64 {
	for range mixRounds {
		h ^= h >> 33
		h *= 0xff51afd7ed558ccd
	}
	return h
}

// expected is the result of the workflow with seed s and n steps.
func expected(s uint64, n int) uint64 {
	h := s
	for i := range n {
		h = mix(h + uint64(i))
	}
	return h
}

// expectedXor is the xor of the results of workflows with seeds 1..w.
func expectedXor(w, n int) uint64 {
	var x uint64
	for s := 1; s <= w; s++ {
		x ^= expected(uint64(s), n)
	}
	return x
}
