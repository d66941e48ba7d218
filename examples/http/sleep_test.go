//go:build linux

package main

import (
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/cohttp"
)

// TestSleepRoute: in every server kind, on one loop, three requests that
// wait 1 s each are answered together about 1 s later (one after another
// would take 3 s), and GET / on another connection is answered while they
// wait.
func TestSleepRoute(t *testing.T) {
	for _, kind := range []string{"handler", "cohttp-stackful", "cohttp-stackless"} {
		t.Run(kind, func(t *testing.T) {
			var s *server
			var err error
			if kind == "handler" {
				s, err = start("127.0.0.1:0", 1, helloMux(), cohttp.Limits{})
			} else {
				s, err = startCohttp("127.0.0.1:0", 1, kind, cohttp.Limits{})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.stop()
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
			get := func(path string) (string, error) {
				resp, err := client.Get("http://" + s.addr + path)
				if err != nil {
					return "", err
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				return string(b), err
			}
			t0 := time.Now()
			var mu sync.Mutex
			var slept []time.Duration
			var wg sync.WaitGroup
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if body, err := get("/sleep/1s"); err != nil || body != "Slept 1s\n" {
						t.Errorf("/sleep/1s: %q, %v", body, err)
					}
					mu.Lock()
					slept = append(slept, time.Since(t0))
					mu.Unlock()
				}()
			}
			time.Sleep(100 * time.Millisecond)
			if body, err := get("/"); err != nil || body != "Hello, World!\n" {
				t.Fatalf("GET / while others sleep: %q, %v", body, err)
			}
			mu.Lock()
			early := len(slept)
			mu.Unlock()
			wg.Wait()
			if early > 0 || len(slept) != 3 || slept[2] > 2500*time.Millisecond {
				t.Errorf("%d sleeps answered before GET /; all three after %v (want about 1 s)", early, slept)
			}
		})
	}
}
