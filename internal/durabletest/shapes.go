package durabletest

import (
	"strconv"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// The frame shapes that internal/bench snapshots and restores, by the
// million: each task waits once in Yield (until Resume) holding a frame
// of its shape, then reports its result to Finished. They do not Log.

// Finished is called by a shape when it returns, with its key and its
// result; tests and benchmarks replace it.
var Finished = func(key, result int) {}

// Pair is the smallest durable task: one frame holding two ints.
//
//co:stackless durable
func Pair(co *stackful.Co, key, x int) int {
	co.Yield()
	Finished(key, key+x)
	return key + x
}

// Blob holds a 1 KiB []byte.
//
//co:stackless durable
func Blob(co *stackful.Co, key int) int {
	buf := make([]byte, 1024)
	for i := range buf {
		buf[i] = byte(key + i)
	}
	co.Yield()
	sum := 0
	for _, c := range buf {
		sum += int(c)
	}
	Finished(key, sum)
	return sum
}

// Index holds a map of 100 entries.
//
//co:stackless durable
func Index(co *stackful.Co, key int) int {
	m := make(map[string]int, 100)
	for i := range 100 {
		m[strconv.Itoa(i)] = key + i
	}
	co.Yield()
	sum := 0
	for k, v := range m {
		n, _ := strconv.Atoi(k)
		sum += v - n
	}
	Finished(key, sum)
	return sum
}
