package main

import (
	"context"
	"testing"
	"time"

	"github.com/cogen-go/cogen/client/gate/internal/servers"
	"github.com/redis/go-redis/v9"
)

// Both loads run against the server and count their round trips.
func TestLoads(t *testing.T) {
	addr := servers.Redis(t)
	rc := redis.NewClient(&redis.Options{Addr: addr})
	if err := rc.Set(context.Background(), "dbload:key", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	for name, load := range map[string]func(string, int, time.Duration, string) (Result, error){
		"goroutines": goroutines, "coroutines": coroutines,
	} {
		r, err := load(addr, 20, 200*time.Millisecond, "dbload:key")
		if err != nil || r.Requests < 20 || r.Seconds < 0.2 || r.CPU <= 0 {
			t.Errorf("%s: %+v, %v", name, r, err)
		}
	}
}
