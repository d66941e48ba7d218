package stackful

import (
	"os"
	"sort"
	"strings"
	"syscall"
)

// Per-coroutine environment variables: libco hooks setenv, unsetenv and
// getenv so that each coroutine sees its own values (example_setenv). Here
// every coroutine, the main coroutine included, has a private overlay over
// the process environment: Setenv and Unsetenv change only the overlay;
// Getenv and LookupEnv read the overlay first and fall back to the process
// environment. The overlay is dropped when the coroutine is released or
// reset.

// envVar is one overlay entry; unset hides the process value.
type envVar struct {
	value string
	unset bool
}

// Setenv sets the coroutine's own value of the variable key.
func (co *Co) Setenv(key, value string) error {
	if co == nil {
		nilCo("Setenv")
	}
	if err := checkEnvKey(key); err != nil {
		return os.NewSyscallError("setenv", err)
	}
	if strings.IndexByte(value, 0) >= 0 {
		return os.NewSyscallError("setenv", syscall.EINVAL)
	}
	co.vars()[key] = envVar{value: value}
	return nil
}

// Unsetenv hides the variable key from the coroutine, whatever the process
// environment holds.
func (co *Co) Unsetenv(key string) error {
	if co == nil {
		nilCo("Unsetenv")
	}
	if err := checkEnvKey(key); err != nil {
		return os.NewSyscallError("unsetenv", err)
	}
	co.vars()[key] = envVar{unset: true}
	return nil
}

// Getenv returns the coroutine's value of the variable key: its own if set,
// else the process environment's.
func (co *Co) Getenv(key string) string {
	if co == nil {
		nilCo("Getenv")
	}
	v, _ := co.LookupEnv(key)
	return v
}

// LookupEnv is Getenv reporting whether the variable is present.
func (co *Co) LookupEnv(key string) (string, bool) {
	if co == nil {
		nilCo("LookupEnv")
	}
	if x := co.more(); x != nil {
		if v, ok := x.vars[key]; ok {
			return v.value, !v.unset
		}
	}
	return os.LookupEnv(key)
}

// Environ returns the coroutine's environment as "key=value" strings: the
// process environment with the coroutine's own values applied, sorted.
func (co *Co) Environ() []string {
	if co == nil {
		nilCo("Environ")
	}
	env := os.Environ()
	x := co.more()
	if x == nil || len(x.vars) == 0 {
		return env
	}
	out := env[:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, own := x.vars[k]; !own {
			out = append(out, kv)
		}
	}
	for k, v := range x.vars {
		if !v.unset {
			out = append(out, k+"="+v.value)
		}
	}
	sort.Strings(out)
	return out
}

func (co *Co) vars() map[string]envVar {
	x := co.ext()
	if x.vars == nil {
		x.vars = make(map[string]envVar)
	}
	return x.vars
}

func checkEnvKey(key string) error {
	if key == "" || strings.ContainsAny(key, "=\x00") {
		return syscall.EINVAL
	}
	return nil
}
