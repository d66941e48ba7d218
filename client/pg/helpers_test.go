package pg

import (
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// serverConfig returns the Config of COGEN_PG_URL (see .ci/dbservers):
// the test skips without a server outside CI and fails with CI=true.
func serverConfig(t *testing.T) Config {
	t.Helper()
	url := os.Getenv("COGEN_PG_URL")
	msg := ""
	if url == "" {
		msg = "PostgreSQL absent: set COGEN_PG_URL (source .ci/dbservers; dbservers_start)"
	} else if cfg, err := ParseURL(url); err != nil {
		t.Fatalf("COGEN_PG_URL: %v", err)
	} else if c, err := net.DialTimeout("tcp", cfg.Addr, 2*time.Second); err != nil {
		msg = fmt.Sprintf("PostgreSQL at %s (COGEN_PG_URL) not reachable: %v", cfg.Addr, err)
	} else {
		c.Close()
		return cfg
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true requires it")
	}
	t.Skip(msg)
	return Config{}
}

// A model runs a test body on a fresh loop: in a stackful coroutine, or
// as a stackless task.
type model struct {
	name string
	// run calls the body's stackful form in a coroutine, or spawns its
	// generated frame, and runs the loop until it is done.
	run func(t *testing.T, stackfulBody func(*stackful.Co), frame stackless.Frame)
}

var models = []model{
	{"stackful", func(t *testing.T, body func(*stackful.Co), _ stackless.Frame) {
		env, err := stackful.NewEnv()
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		co := env.Create(body, nil)
		co.Resume()
		env.Run(func() bool { return co.Status() == stackful.Dead })
	}},
	{"stackless", func(t *testing.T, _ func(*stackful.Co), f stackless.Frame) {
		l, err := loop.New()
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if err := stackless.Run(l, stackless.Spawn(l, f)); err != nil {
			t.Fatal(err)
		}
	}},
}

// TestMain fails the package if the tests leave descriptors open: every
// conn a test or a pool opened must be closed by then.
func TestMain(m *testing.M) {
	// Go's runtime poller opens its own descriptors on first use (by
	// serverConfig's probe): open them before counting.
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	before := openFDs()
	code := m.Run()
	if after := openFDs(); code == 0 && after > before {
		fmt.Fprintf(os.Stderr, "pg: %d descriptors open after the tests, %d before\n", after, before)
		code = 1
	}
	os.Exit(code)
}

func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(ents)
}
