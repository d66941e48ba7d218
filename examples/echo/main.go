//go:build linux

// Command echo is libco's example_echosvr and example_echocli on stackful
// coroutines with hooked system calls: blocking-style socket code, run
// cooperatively on an event loop.
//
// The server is an accept coroutine plus a pool of worker coroutines per
// env: the accept coroutine hands each connection to an idle worker and
// resumes it; a worker echoes until the peer closes, then returns to the
// pool. With no idle worker a connection is closed at once, as in libco.
// The client runs N coroutines that each connect and then ping-pong a
// message for the given duration, printing requests per second every
// second and in total.
//
// Usage:
//
//	echo server [-addr 127.0.0.1:10000] [-workers 1000] [-loops N] [-idle-timeout 60s]
//	echo client [-addr 127.0.0.1:10000] [-conns 100] [-size 64] [-duration 5s] [-loops N]
//
// Both run a group of N envs (stackful.Group), each on its own goroutine
// locked to its thread; N defaults to GOMAXPROCS, and -envs is the old name
// of -loops. The server's envs listen on one port with SO_REUSEPORT (where
// libco forks processes); on an interrupt it stops accepting and gives the
// connections being served 5 s to end. The client's envs share the
// connections.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("echo: ")
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "server":
		fs := flag.NewFlagSet("server", flag.ExitOnError)
		cfg := serverConfig{out: os.Stdout}
		fs.StringVar(&cfg.addr, "addr", "127.0.0.1:10000", "address to listen on")
		fs.IntVar(&cfg.workers, "workers", 1000, "worker coroutines per env")
		fs.IntVar(&cfg.loops, "loops", 0, "envs (loops, threads) accepting on the address; 0: GOMAXPROCS")
		fs.IntVar(&cfg.loops, "envs", 0, "old name of -loops")
		fs.DurationVar(&cfg.idle, "idle-timeout", 60*time.Second, "close a connection silent this long (0: never)")
		fs.Parse(os.Args[2:])
		s, err := startServer(cfg)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("listening on %s with %d env(s) of %d workers\n", s.addr, s.g.Len(), cfg.workers)
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		<-sig
		if err := s.stop(); err != nil {
			log.Fatal(err)
		}
	case "client":
		fs := flag.NewFlagSet("client", flag.ExitOnError)
		cfg := clientConfig{out: os.Stdout}
		fs.StringVar(&cfg.addr, "addr", "127.0.0.1:10000", "server address")
		fs.IntVar(&cfg.conns, "conns", 100, "connections (one coroutine each)")
		fs.IntVar(&cfg.size, "size", 64, "message size in bytes")
		fs.DurationVar(&cfg.duration, "duration", 5*time.Second, "how long to run")
		fs.IntVar(&cfg.loops, "loops", 0, "envs (loops, threads) sharing the connections; 0: GOMAXPROCS")
		fs.IntVar(&cfg.loops, "envs", 0, "old name of -loops")
		fs.Parse(os.Args[2:])
		res, err := runClient(cfg)
		if err != nil {
			log.Fatal(err)
		}
		if res.requests == 0 {
			os.Exit(1)
		}
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: echo server [-addr a] [-workers n] [-loops n] [-idle-timeout d]\n       echo client [-addr a] [-conns n] [-size n] [-duration d] [-loops n]")
	os.Exit(2)
}
