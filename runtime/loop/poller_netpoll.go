//go:build !linux || cogen_netpoll

package loop

import (
	"sync"
	"time"
)

// netpoller is the portable poller, built on Go's own runtime poller: it
// runs wherever Go does, and on Linux under the build tag cogen_netpoll.
//
// It can be thought of as epoll made of goroutines: each registered fd has
// a watcher goroutine per direction blocked in Go's poller (a RawConn
// callback that never says done, on a duplicate of the fd), which posts
// every readiness edge to a list and signals a channel; wait blocks on that
// channel and a time.Timer, then delivers the list. Edges are reported as
// they come, so the loop's edge-triggered contract holds; the exact bits
// come from a zero-timeout poll(2) of the fd at each edge.
//
// It costs a goroutine switch and a poll(2) per edge on top of Go's own
// poller, a dup(2) per registration, and its timeouts are Go timers: as
// punctual as time.Sleep. Where Go's poller cannot watch fds as ints
// (Windows), add fails with ErrNotSupported and the loop still runs timers,
// waiters and submitted funcs.
type netpoller struct {
	notify chan struct{} // capacity 1: an edge or a wake is pending
	timer  *time.Timer

	mu      sync.Mutex
	pending []fdEdge // posted by watchers, not yet delivered
	spare   []fdEdge

	watches map[int]*watch // loop goroutine only
}

// An fdEdge is one readiness edge of a watch. It is delivered only if the
// watch is still the fd's registration: an fd number unregistered and
// registered again gets a new watch.
type fdEdge struct {
	w  *watch
	ev Events
}

// newPoller returns the portable poller whatever b asks for: it is the only
// one here; asking for another is logged once per process.
func newPoller(b Backend) (poller, Backend, error) {
	if b != BackendAuto && b != BackendPortable {
		logOnce(&fallbackLogged, "loop: backend %v not available in this build; using the portable poller", b)
	}
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &netpoller{notify: make(chan struct{}, 1), timer: t, watches: map[int]*watch{}}, BackendPortable, nil
}

func (p *netpoller) add(fd int) error {
	if p.watches[fd] != nil {
		return ErrRegistered
	}
	w, err := p.watch(fd)
	if err != nil {
		return err
	}
	p.watches[fd] = w
	return nil
}

func (p *netpoller) del(fd int) error {
	w := p.watches[fd]
	if w == nil {
		return nil
	}
	delete(p.watches, fd)
	return w.stop()
}

// post records an edge from a watcher goroutine and signals the loop.
func (p *netpoller) post(w *watch, ev Events) {
	p.mu.Lock()
	p.pending = append(p.pending, fdEdge{w, ev})
	p.mu.Unlock()
	p.wake()
}

func (p *netpoller) wait(timeout time.Duration, fn func(fd int, ev Events)) (int, error) {
	switch {
	case timeout < 0:
		<-p.notify
	case timeout == 0:
		select {
		case <-p.notify:
		default:
		}
	default:
		select {
		case <-p.notify:
		default:
			p.timer.Reset(timeout)
			select {
			case <-p.notify:
			case <-p.timer.C:
			}
			p.timer.Stop()
		}
	}
	p.mu.Lock()
	edges := p.pending
	p.pending = p.spare[:0]
	p.mu.Unlock()
	for i, e := range edges {
		edges[i] = fdEdge{}
		if p.watches[e.w.fd] == e.w {
			fn(e.w.fd, e.ev)
		}
	}
	p.spare = edges[:0]
	return len(edges), nil
}

func (p *netpoller) wake() error {
	select {
	case p.notify <- struct{}{}:
	default: // a wake is pending already
	}
	return nil
}

func (p *netpoller) close() error {
	var err error
	for fd, w := range p.watches {
		delete(p.watches, fd)
		if e := w.stop(); e != nil && err == nil {
			err = e
		}
	}
	p.timer.Stop()
	return err
}
