//go:build linux

package resp

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// redisAddr returns COGEN_REDIS_ADDR (see .ci/dbservers): the test skips
// without it outside CI and fails with CI=true.
func redisAddr(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("COGEN_REDIS_ADDR")
	msg := ""
	if addr == "" {
		msg = "redis-server absent: set COGEN_REDIS_ADDR (source .ci/dbservers; dbservers_start)"
	} else if c, err := net.DialTimeout("tcp", addr, 2*time.Second); err != nil {
		msg = fmt.Sprintf("redis-server at %s (COGEN_REDIS_ADDR) not reachable: %v", addr, err)
	} else {
		c.Close()
		return addr
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true requires it")
	}
	t.Skip(msg)
	return ""
}

// scenario runs every kind of reply, a pipeline and a reply larger than
// the read buffer against the server, in either model.
//
//co:stackless
func scenario(co *stackful.Co, addr, key string) error {
	c, err := Dial(co, addr)
	if err != nil {
		return err
	}
	err = exchange(co, c, key)
	co.Close(c.FD())
	return err
}

//co:stackless
func exchange(co *stackful.Co, c *Conn, key string) error {
	v, err := c.Do(co, "SET", key, "hello")
	if err != nil || v.Kind != SimpleString || string(v.Str) != "OK" {
		return fmt.Errorf("SET: %v %q %v", v.Kind, v.Str, err)
	}
	v, err = c.Do(co, "GET", key)
	if err != nil || v.Kind != BulkString || string(v.Str) != "hello" {
		return fmt.Errorf("GET: %v %q %v", v.Kind, v.Str, err)
	}
	v, err = c.Do(co, "GET", key+":missing")
	if err != nil || v.Kind != Null {
		return fmt.Errorf("GET of a missing key: %v %v", v.Kind, err)
	}
	v, err = c.Do(co, "INCR", key)
	var se ServerError
	if !errors.As(err, &se) || v.Kind != Error || !strings.Contains(string(v.Str), "not an integer") {
		return fmt.Errorf("INCR of a string: %v %q %v", v.Kind, v.Str, err)
	}
	// A pipeline of 200 commands: one write, replies read in order.
	for i := range 100 {
		c.Append("SET", key+":"+strconv.Itoa(i), strconv.Itoa(i*i))
	}
	for i := range 100 {
		c.Append("GET", key+":"+strconv.Itoa(i))
	}
	if err := c.Flush(co); err != nil {
		return err
	}
	for i := range 200 {
		v, err := c.Receive(co)
		if err != nil {
			return fmt.Errorf("pipelined reply %d: %v", i, err)
		}
		if i >= 100 && string(v.Str) != strconv.Itoa((i-100)*(i-100)) {
			return fmt.Errorf("pipelined GET %d = %q", i-100, v.Str)
		}
	}
	v, err = c.Do(co, "RPUSH", key+":list", "a", "b", "c")
	if err != nil || v.Kind != Integer || v.Int != 3 {
		return fmt.Errorf("RPUSH: %v %d %v", v.Kind, v.Int, err)
	}
	v, err = c.Do(co, "LRANGE", key+":list", "0", "-1")
	if err != nil || v.Kind != Array || len(v.Array) != 3 || string(v.Array[2].Str) != "c" {
		return fmt.Errorf("LRANGE: %v %v %v", v.Kind, v.Array, err)
	}
	big := strings.Repeat("x", 100<<10) // larger than the 16 KiB buffer
	if _, err := c.Do(co, "SET", key, big); err != nil {
		return err
	}
	v, err = c.Do(co, "GET", key)
	if err != nil || string(v.Str) != big {
		return fmt.Errorf("GET of 100 KiB: %d bytes, %v", len(v.Str), err)
	}
	args := []string{"DEL", key, key + ":list"}
	for i := range 100 {
		args = append(args, key+":"+strconv.Itoa(i))
	}
	v, err = c.Do(co, args...)
	if err != nil || v.Int != 102 {
		return fmt.Errorf("DEL: %d %v", v.Int, err)
	}
	return nil
}

func TestStackful(t *testing.T) {
	addr := redisAddr(t)
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	var result error
	co := env.Create(func(co *stackful.Co) { result = scenario(co, addr, "resp:stackful") }, nil)
	co.Resume()
	env.Run(func() bool { return co.Status() == stackful.Dead })
	if result != nil {
		t.Fatal(result)
	}
}

func TestStackless(t *testing.T) {
	addr := redisAddr(t)
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	f := newScenarioFrame(addr, "resp:stackless")
	if err := stackless.Run(l, stackless.Spawn(l, f)); err != nil {
		t.Fatal(err)
	}
	if err := f.Result(); err != nil {
		t.Fatal(err)
	}
}

// Many coroutines, each with its own conn, in one env.
func TestStackfulConcurrent(t *testing.T) {
	addr := redisAddr(t)
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	const n = 50
	done := 0
	var errs []error
	for i := range n {
		env.Create(func(co *stackful.Co) {
			defer func() { done++ }()
			if err := scenario(co, addr, "resp:c"+strconv.Itoa(i)); err != nil {
				errs = append(errs, err)
			}
		}, nil).Resume()
	}
	env.Run(func() bool { return done == n })
	if len(errs) > 0 {
		t.Fatalf("%d failed; first: %v", len(errs), errs[0])
	}
}

// A closed server: Dial fails with ECONNREFUSED, wrapped.
func TestDialRefused(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	env, _ := stackful.NewEnv()
	defer env.Close()
	var err error
	co := env.Create(func(co *stackful.Co) { _, err = Dial(co, addr) }, nil)
	co.Resume()
	env.Run(func() bool { return co.Status() == stackful.Dead })
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Dial of a closed port: %v", err)
	}
}
