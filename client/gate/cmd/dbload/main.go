// Command dbload is cmd/cobench's go-redis load for its db group: conns
// clients issue GET round trips (one outstanding each) against a Redis
// server for a while, through one go-redis client with a pool of conns,
// either from goroutines or from stackful coroutines of one env (conet
// conns behind the gate of gate.NewRedis). It prints one JSON line: the GETs
// done, the seconds they took and the CPU seconds this process used.
//
//	dbload -addr 127.0.0.1:6379 -conns 50 -d 1s -model coroutines [-cpuprofile file]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	"github.com/cogen-go/cogen/client/gate"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/redis/go-redis/v9"
)

// Result is the output line.
type Result struct {
	Requests int     `json:"requests"`
	Seconds  float64 `json:"seconds"`
	CPU      float64 `json:"cpu"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "Redis server address")
	conns := flag.Int("conns", 50, "concurrent clients and pool size")
	d := flag.Duration("d", time.Second, "how long to load")
	model := flag.String("model", "goroutines", "goroutines or coroutines")
	key := flag.String("key", "cobench:key", "the key to GET (set beforehand)")
	prof := flag.String("cpuprofile", "", "write a CPU profile")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dbload:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	var r Result
	var err error
	switch *model {
	case "goroutines":
		r, err = goroutines(*addr, *conns, *d, *key)
	case "coroutines":
		r, err = coroutines(*addr, *conns, *d, *key)
	default:
		err = fmt.Errorf("unknown model %q", *model)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbload:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(r)
}

func cpu() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func goroutines(addr string, conns int, d time.Duration, key string) (Result, error) {
	rc := redis.NewClient(&redis.Options{Addr: addr, PoolSize: conns, MinIdleConns: conns})
	defer rc.Close()
	ctx := context.Background()
	if err := rc.Get(ctx, key).Err(); err != nil {
		return Result{}, err
	}
	counts := make([]int, conns)
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	c0, t0 := cpu(), time.Now()
	end := t0.Add(d)
	for i := range conns {
		wg.Go(func() {
			for time.Now().Before(end) {
				if err := rc.Get(ctx, key).Err(); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				counts[i]++
			}
		})
	}
	wg.Wait()
	return result(counts, t0, c0), firstErr
}

func coroutines(addr string, conns int, d time.Duration, key string) (Result, error) {
	env, err := stackful.NewEnv()
	if err != nil {
		return Result{}, err
	}
	defer env.Close()
	rc := gate.NewRedis(gate.RedisOptions(addr, conns))
	defer rc.Close()
	ctx := context.Background()
	if err := rc.Client().Get(ctx, key).Err(); err != nil { // the main coroutine: its waits run the loop
		return Result{}, err
	}
	counts := make([]int, conns)
	var firstErr error
	done := 0
	c0, t0 := cpu(), time.Now()
	end := t0.Add(d)
	for i := range conns {
		env.Create(func(co *stackful.Co) {
			defer func() { done++ }()
			co.EnableHook()
			for time.Now().Before(end) {
				err := rc.Do(co, func(c *redis.Client) error { return c.Get(ctx, key).Err() })
				if err != nil {
					firstErr = err
					return
				}
				counts[i]++
			}
		}, nil).Resume()
	}
	if err := env.Run(func() bool { return done == conns }); err != nil {
		return Result{}, err
	}
	return result(counts, t0, c0), firstErr
}

func result(counts []int, t0 time.Time, c0 float64) Result {
	r := Result{Seconds: time.Since(t0).Seconds(), CPU: cpu() - c0}
	for _, n := range counts {
		r.Requests += n
	}
	return r
}
