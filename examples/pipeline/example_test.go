package main

import (
	"os"
	"time"
)

// The same pipeline in both models.
func Example() {
	for _, model := range []string{"stackful", "stackless"} {
		run(os.Stdout, config{model: model, items: 8, workers: 3, work: time.Millisecond, deadline: time.Minute})
	}
	// Output:
	// stackful: 8 items through 3 workers
	// collected 8 results, sum of squares 204
	// per shard: 0:2 1:2 2:2 3:2
	// most workers inside the critical section at once: 1
	// stackless: 8 items through 3 workers
	// collected 8 results, sum of squares 204
	// per shard: 0:2 1:2 2:2 3:2
	// most workers inside the critical section at once: 1
}
