// Command durworker is a durable-task worker on a PostgreSQL store: it
// runs the workflows of package chaosflow (the ones pgstore's chaos tests
// start) until it is killed or gets SIGINT or SIGTERM.
//
//	durworker -url postgres://... -schema s -lease 2s
//
// Each step's effect goes to the effects table of the schema (and an
// attempt row to attempts), keyed by the step's key.
//
// It runs package changeflow's workflows too: built with the tag
// pgstore_changed, its Count is another function under the same name
// (TestChangedCode).
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/pgstore"
	_ "github.com/cogen-go/cogen/durable/pgstore/internal/changeflow"
	"github.com/cogen-go/cogen/durable/pgstore/internal/chaosflow"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func main() {
	url := flag.String("url", os.Getenv("COGEN_PG_URL"), "the PostgreSQL server")
	schema := flag.String("schema", pgstore.DefaultSchema, "the store's schema")
	name := flag.String("name", "", "the worker's name (default: host, pid, random)")
	lease := flag.Duration("lease", 10*time.Second, "lease of a claimed task")
	poll := flag.Duration("poll", 200*time.Millisecond, "how often an idle loop claims")
	loops := flag.Int("loops", 1, "event loops")
	conns := flag.Int("conns", 8, "store conns per loop")
	flag.Parse()
	log.SetFlags(log.Lmicroseconds)
	log.SetPrefix("durworker " + *name + ": ")

	cfg, err := pg.ParseURL(*url)
	if err != nil {
		log.Fatal(err)
	}
	if *name != "" {
		// The worker's sessions are findable in pg_stat_activity.
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params["application_name"] = *name
	}
	s, err := pgstore.Open(cfg, pgstore.Options{Schema: *schema, Conns: *conns})
	if err != nil {
		log.Fatal(err)
	}
	r := durable.NewRunner(s, durable.Options{Worker: *name, Lease: *lease, Poll: *poll, Loops: *loops})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// The effects are written from an env of their own.
	chaosflow.Fx = chaosflow.NewEffects()
	var quit atomic.Bool
	fxDone := make(chan struct{})
	go func() {
		defer close(fxDone)
		env, err := stackful.NewEnv()
		if err != nil {
			log.Fatal(err)
		}
		defer env.Close()
		co := env.Create(func(co *stackful.Co) {
			chaosflow.Fx.Run(co, cfg, chaosflow.QuoteIdent(*schema), r.Worker(), quit.Load)
		}, nil)
		co.Resume()
		env.Run(func() bool { return co.Status() == stackful.Dead })
	}()

	err = r.Run(ctx)
	quit.Store(true)
	<-fxDone
	s.Close()
	if err != nil {
		log.Fatal(err)
	}
}
