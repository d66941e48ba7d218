//go:build linux

package stackful

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

var (
	idxKey  = NewKey[int]()
	nameKey = NewKey[string]()
	errKey  = NewKey[error]()
)

type counter struct{ n int }

func TestSpecificIsolation(t *testing.T) {
	e := newEnv(t)
	ptrKey := NewKey[*counter]()
	main := e.Main()
	idxKey.Set(main, -1)
	var cos []*Co
	var bad []string
	for i := range 10 {
		cos = append(cos, start(e, func(co *Co) {
			if v, ok := idxKey.Lookup(co); ok || v != 0 {
				bad = append(bad, fmt.Sprintf("%d: fresh value %d %v", i, v, ok))
			}
			idxKey.Set(co, i)
			nameKey.Set(co, fmt.Sprint("co", i))
			ptrKey.Set(co, &counter{})
			for range 3 {
				co.Gosched()
				ptrKey.Get(co).n++
				if idxKey.Get(co) != i || nameKey.Get(co) != fmt.Sprint("co", i) {
					bad = append(bad, fmt.Sprintf("%d sees %d %s", i, idxKey.Get(co), nameKey.Get(co)))
				}
			}
			if ptrKey.Get(co).n != 3 {
				bad = append(bad, fmt.Sprintf("%d: counter %d", i, ptrKey.Get(co).n))
			}
		}))
	}
	runUntilDone(t, e, cos...)
	if len(bad) > 0 {
		t.Fatal(strings.Join(bad, "\n"))
	}
	if idxKey.Get(main) != -1 || nameKey.Get(main) != "" {
		t.Fatalf("main's values: %d %q", idxKey.Get(main), nameKey.Get(main))
	}
	// Values survive the coroutine's end and are dropped by Release.
	co := cos[3]
	if idxKey.Get(co) != 3 {
		t.Fatalf("dead coroutine's value %d", idxKey.Get(co))
	}
	co.Release()
	if _, ok := idxKey.Lookup(co); ok {
		t.Fatal("value kept after Release")
	}
}

func TestSpecificNilInterfaceAndDelete(t *testing.T) {
	e := newEnv(t)
	co := e.Create(func(*Co) {}, nil)
	if _, ok := errKey.Lookup(co); ok {
		t.Fatal("set before Set")
	}
	errKey.Set(co, nil)
	if v, ok := errKey.Lookup(co); !ok || v != nil {
		t.Fatalf("nil error value: %v %v", v, ok)
	}
	e1 := errors.New("x")
	errKey.Set(co, e1)
	if errKey.Get(co) != e1 {
		t.Fatal("error value")
	}
	errKey.Delete(co)
	if _, ok := errKey.Lookup(co); ok {
		t.Fatal("value after Delete")
	}
	errKey.Delete(e.Main()) // nothing set: no-op
}

func TestEnvironIsolation(t *testing.T) {
	t.Setenv("COGEN_PROC", "process")
	t.Setenv("COGEN_CGI", "none")
	e := newEnv(t)
	var cos []*Co
	var bad []string
	for i := range 5 {
		cos = append(cos, start(e, func(co *Co) {
			if got := co.Getenv("COGEN_CGI"); got != "none" {
				bad = append(bad, fmt.Sprintf("%d: before Setenv %q", i, got))
			}
			if err := co.Setenv("COGEN_CGI", fmt.Sprint("cgi", i)); err != nil {
				bad = append(bad, err.Error())
			}
			if i%2 == 0 {
				co.Unsetenv("COGEN_PROC")
			}
			for range 3 {
				co.Gosched()
				if got := co.Getenv("COGEN_CGI"); got != fmt.Sprint("cgi", i) {
					bad = append(bad, fmt.Sprintf("%d sees %q", i, got))
				}
				v, ok := co.LookupEnv("COGEN_PROC")
				if ok != (i%2 == 1) || (ok && v != "process") {
					bad = append(bad, fmt.Sprintf("%d: COGEN_PROC %q %v", i, v, ok))
				}
			}
			env := strings.Join(co.Environ(), "\n")
			if !strings.Contains(env, fmt.Sprint("COGEN_CGI=cgi", i)) || strings.Contains(env, "COGEN_CGI=none") ||
				strings.Contains(env, "COGEN_PROC=") != (i%2 == 1) {
				bad = append(bad, fmt.Sprintf("%d: Environ %q", i, env))
			}
		}))
	}
	runUntilDone(t, e, cos...)
	if len(bad) > 0 {
		t.Fatal(strings.Join(bad, "\n"))
	}
	if os.Getenv("COGEN_CGI") != "none" || e.Main().Getenv("COGEN_CGI") != "none" {
		t.Fatal("process environment changed")
	}
	main := e.Main()
	main.Setenv("COGEN_CGI", "main")
	if main.Getenv("COGEN_CGI") != "main" || os.Getenv("COGEN_CGI") != "none" {
		t.Fatal("main's own value")
	}
	for _, key := range []string{"", "A=B", "A\x00"} {
		if err := main.Setenv(key, "v"); !errors.Is(err, syscall.EINVAL) {
			t.Fatalf("Setenv(%q): %v", key, err)
		}
		if err := main.Unsetenv(key); !errors.Is(err, syscall.EINVAL) {
			t.Fatalf("Unsetenv(%q): %v", key, err)
		}
	}
	if err := main.Setenv("K", "a\x00b"); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("Setenv with NUL in value: %v", err)
	}
	cos[0].Release()
	if cos[0].Getenv("COGEN_CGI") != "none" {
		t.Fatal("overlay kept after Release")
	}
}

func TestHookFlag(t *testing.T) {
	e := newEnv(t)
	co := e.Create(func(*Co) {}, nil)
	if co.HookEnabled() {
		t.Fatal("enabled by default")
	}
	co.EnableHook()
	if !co.HookEnabled() {
		t.Fatal("not enabled")
	}
	co.DisableHook()
	if co.HookEnabled() {
		t.Fatal("not disabled")
	}
}
