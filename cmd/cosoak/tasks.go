//go:build linux

package main

//go:generate go tool cogen

import (
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// sleeper sleeps rounds times for random durations below max and records
// each wake-up's lateness on the loop clock in s: a wake-up before the
// deadline is a failure. The same source runs as a stackful coroutine and,
// generated, as a stackless task.
//
//co:stackless
func sleeper(co *stackful.Co, l *loop.Loop, s *timerStats, rounds int, max time.Duration) {
	for i := 0; i < rounds && !s.stop; i++ {
		d := s.duration(max)
		start := l.Now()
		co.Sleep(d)
		s.record(d, l.Now()-start)
	}
}

// blocked waits for something that never comes — a read on fd, then a
// signal on c — until it is canceled, its fd is closed or its loop closes.
// It returns whether the wait on c was signalled and the error that ended
// the read (nil if data arrived, which the soak never sends).
//
//co:stackless
func blocked(co *stackful.Co, fd int, c *loop.Cond) (bool, error) {
	var buf [16]byte
	n, err := co.Read(fd, buf[:])
	if err == nil && n > 0 {
		return false, nil
	}
	return co.Wait(c, -1), err
}

// produce sends 0, 1, ..., n-1 on out, then closes it.
//
//co:stackless
func produce(co *stackful.Co, out *cosync.Chan[int], n int) error {
	for i := 0; i < n; i++ {
		if err := out.Send(co, i); err != nil {
			return err
		}
	}
	out.Close()
	return nil
}

// work sends 2v+1 on out for every v received from in; the last of the
// live workers to finish closes out.
//
//co:stackless
func work(co *stackful.Co, in, out *cosync.Chan[int], live *int) error {
	for {
		v, ok := in.Recv(co)
		if !ok {
			break
		}
		if err := out.Send(co, 2*v+1); err != nil {
			return err
		}
	}
	*live--
	if *live == 0 {
		out.Close()
	}
	return nil
}

// collect counts every value received from in, by the index it was
// produced with, until in is closed; values no producer sent count as bad.
//
//co:stackless
func collect(co *stackful.Co, in *cosync.Chan[int], seen []int, bad *int) {
	for {
		v, ok := in.Recv(co)
		if !ok {
			return
		}
		if i := (v - 1) / 2; v%2 == 1 && i >= 0 && i < len(seen) {
			seen[i]++
		} else {
			*bad++
		}
	}
}
