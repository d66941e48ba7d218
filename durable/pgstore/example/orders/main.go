// Command orders is the example to read first about durable workflows on
// PostgreSQL: workers on any number of machines share one database, a
// workflow keeps its state in ordinary Go variables (a running total and
// a pointer to it), and a worker killed mid-workflow loses nothing: another
// worker resumes each of its workflows from its last checkpoint, with the
// total as it was there.
//
// The workflow is [Order] (order.go): for each line of an order it
// records a ledger row under the step's key, adds the line's price to
// *p (p := &total), and checkpoints (co.Gosched, or a short co.Sleep);
// then it waits for a "paid" signal (durable.Receive) whose value is a
// tip, adds it, and records the total as its result.
//
// # Running it
//
// Against any PostgreSQL you can create a schema in (the store creates
// its tables, in the schema given by -schema, on first use):
//
//	export COGEN_PG_URL='postgres://user:password@host:5432/db?sslmode=disable'
//	cd durable/pgstore
//	go build -o /tmp/orders ./example/orders
//	/tmp/orders -start 1000          # queue 1,000 orders and their "paid" signals
//	/tmp/orders -worker &            # worker A (as many as you like, anywhere)
//	sleep 1; kill -9 $!              # kill it mid-run
//	/tmp/orders -worker -name B &    # worker B takes over
//	/tmp/orders -check 1000          # waits for every order, compares its total
//	/tmp/orders -forget              # deletes the records of the done orders
//
// -check waits until orders 1 to n have ended, compares each total with
// [Expected] (the total of an uninterrupted run) and the order's ledger
// rows with its lines (one row per line, however often a step ran), and
// exits with status 1 on any difference. -forget then deletes the
// records of the orders that are done (a store keeps every record until
// it is deleted: durable.Store's List and Delete). -reset drops the schema. For a
// throwaway server on this machine: source .ci/dbservers;
// dbservers_start (from the repository's root) sets COGEN_PG_URL.
//
// # What happens on kill
//
// A worker holds the tasks it runs under a lease (-lease, 10 s by
// default) and commits each task's snapshot (its frames: the loop's
// counter, total, the pointer to it, the step's key) at every checkpoint.
// When it is killed, its leases run out and another worker's next claim
// (every -poll) takes the tasks and restores each from its last commit:
// the steps since that checkpoint run again, and the total is the one
// the snapshot holds, so nothing is added twice. What a re-run step did
// to the world is not undone: the ledger row is keyed by
// durable.StepKey, the same for every run of a step, so the table keeps
// one row per line. A workflow waiting for its signal, or sleeping, is a
// row in the database, not memory in a worker.
//
// If the code of Order changes while snapshots of the old code exist, a
// worker running the new code parks those tasks (state parked, with an
// error naming the function) rather than resume them wrong; see
// docs/durable.md for how to change a durable function.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/pgstore"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func main() {
	url := flag.String("url", os.Getenv("COGEN_PG_URL"), "the PostgreSQL server (default $COGEN_PG_URL)")
	schema := flag.String("schema", "orders_example", "the schema of the store's and the ledger's tables")
	worker := flag.Bool("worker", false, "run a worker until killed, SIGINT or SIGTERM")
	name := flag.String("name", "", "the worker's name (default: host, pid, random)")
	lease := flag.Duration("lease", 10*time.Second, "the lease of a claimed task")
	poll := flag.Duration("poll", 200*time.Millisecond, "how often an idle worker claims")
	start := flag.Int("start", 0, "start orders order-1 to order-n and send their \"paid\" signals")
	check := flag.Int("check", 0, "wait for orders order-1 to order-n and check their totals and ledger rows")
	forget := flag.Bool("forget", false, "delete the records of the orders that are done (after -check)")
	reset := flag.Bool("reset", false, "drop the schema and its tables")
	lines := flag.Int("lines", 6, "lines per order (-start, -check)")
	nap := flag.Duration("nap", 10*time.Millisecond, "the Sleep of every other line (-start)")
	flag.Parse()
	log.SetFlags(log.Lmicroseconds)
	log.SetPrefix("orders: ")

	cfg, err := pg.ParseURL(*url)
	if err != nil {
		log.Fatalf("-url: %v", err)
	}
	q := quoteIdent(*schema)
	if *reset {
		if err := execSQL(cfg, "DROP SCHEMA IF EXISTS "+q+" CASCADE"); err != nil {
			log.Fatal(err)
		}
	}
	if *start == 0 && *check == 0 && !*worker && !*forget {
		return
	}
	if err := execSQL(cfg, LedgerDDL(q)); err != nil {
		log.Fatal(err)
	}
	s, err := pgstore.Open(cfg, pgstore.Options{Schema: *schema})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if *start > 0 {
		if err := startOrders(s, *start, *lines, *nap); err != nil {
			log.Fatal(err)
		}
	}
	if *worker {
		if err := runWorker(s, cfg, q, *name, *lease, *poll); err != nil {
			log.Fatal(err)
		}
	}
	if *check > 0 {
		if err := checkOrders(s, cfg, q, *check, *lines); err != nil {
			log.Print(err)
			s.Close()
			os.Exit(1)
		}
	}
	if *forget {
		if err := forgetDone(s); err != nil {
			log.Fatal(err)
		}
	}
}

// forgetDone deletes the records of the tasks that are done, a page at a
// time: a store keeps every record until it is deleted.
func forgetDone(s durable.Store) error {
	return durable.Do(func(co *stackful.Co) error {
		n := 0
		for {
			page, err := s.List(co, durable.Done, "", 100)
			if err != nil || len(page) == 0 {
				log.Printf("deleted %d done orders", n)
				return err
			}
			for _, in := range page {
				if err := s.Delete(co, in.ID); err != nil {
					return err
				}
				n++
			}
		}
	})
}

// OrderID is the ID of order n.
func OrderID(n int) durable.ID { return durable.ID("order-" + strconv.Itoa(n)) }

// startOrders starts orders 1 to n, skipping those that exist (a -start
// run again after a crash starts the rest), and sends the "paid" signal
// of each order it started.
func startOrders(s durable.Store, n, lines int, nap time.Duration) error {
	return durable.Do(func(co *stackful.Co) error {
		started := 0
		for i := 1; i <= n; i++ {
			id := OrderID(i)
			err := durable.Start(co, s, id, NewOrderFrame(id, lines, nap))
			if errors.Is(err, durable.ErrExists) {
				continue
			}
			if err != nil {
				return err
			}
			if err := durable.Send(co, s, id, "paid", []byte{Tip(id)}); err != nil {
				return err
			}
			started++
		}
		log.Printf("started %d orders of %d lines (%d existed)", started, lines, n-started)
		return nil
	})
}

// runWorker runs a worker (one loop) and the ledger's writer until
// SIGINT or SIGTERM.
func runWorker(s durable.Store, cfg pg.Config, schema, name string, lease, poll time.Duration) error {
	r := durable.NewRunner(s, durable.Options{Worker: name, Lease: lease, Poll: poll})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	Ledger = newLedger()
	var quit atomic.Bool
	done := make(chan error, 1)
	go func() {
		done <- durable.Do(func(co *stackful.Co) error {
			Ledger.run(co, cfg, schema, quit.Load)
			return nil
		})
	}()
	log.Printf("worker %s running", r.Worker())
	err := r.Run(ctx)
	quit.Store(true)
	if lerr := <-done; err == nil {
		err = lerr
	}
	return err
}

// checkOrders waits until orders 1 to n have ended and checks each
// one's state, total and ledger rows.
func checkOrders(s durable.Store, cfg pg.Config, schema string, n, lines int) error {
	bad := 0
	err := durable.Do(func(co *stackful.Co) error {
		c, err := pg.Connect(co, cfg)
		if err != nil {
			return err
		}
		defer c.Close(co)
		st, err := c.Prepare(co, "", `SELECT count(*), count(DISTINCT line), coalesce(sum(amount), 0)
			FROM `+schema+`.ledger WHERE order_id = $1`)
		if err != nil {
			return err
		}
		var rows pg.Rows
		for i := 1; i <= n; i++ {
			id := OrderID(i)
			in, err := durable.Await(co, s, id, 100*time.Millisecond)
			if err != nil {
				return err
			}
			want := Expected(id, lines)
			if in.State != durable.Done || string(in.Result) != strconv.Itoa(want) {
				fmt.Printf("%s: %v, total %q (error %q), want done, total %d\n", id, in.State, in.Result, in.Error, want)
				bad++
				continue
			}
			if err := c.Queue(st, pg.Text(string(id))); err == nil {
				if err = c.Send(co); err == nil {
					err = c.Next(co, &rows)
				}
			}
			if err != nil {
				return err
			}
			count, _ := rows.Int(0, 0)
			distinct, _ := rows.Int(0, 1)
			sum, _ := rows.Int(0, 2)
			if count != int64(lines) || distinct != int64(lines) || sum != int64(want-int(Tip(id))) {
				fmt.Printf("%s: %d ledger rows (%d lines) summing to %d, want %d rows summing to %d\n",
					id, count, distinct, sum, lines, want-int(Tip(id)))
				bad++
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d orders wrong", bad, n)
	}
	fmt.Printf("%d orders done, every total and ledger right\n", n)
	return nil
}

// execSQL runs sql (the simple protocol) on a conn of its own.
func execSQL(cfg pg.Config, sql string) error {
	return durable.Do(func(co *stackful.Co) error {
		c, err := pg.Connect(co, cfg)
		if err != nil {
			return err
		}
		defer c.Close(co)
		_, err = c.Exec(co, sql)
		return err
	})
}
