package hook

import (
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// Socket is socket(2). The descriptor is non-blocking and close-on-exec in
// the kernel whatever typ says; SOCK_NONBLOCK in typ makes it non-blocking
// for the caller too (calls on it never wait). It can be called anywhere.
func Socket(domain, typ, proto int) (int, error) {
	fd, err := unix.Socket(domain, typ|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return -1, err
	}
	adopt(fd, typ&unix.SOCK_NONBLOCK != 0)
	return fd, nil
}

// Socketpair is socketpair(2), with Socket's treatment of both descriptors.
func Socketpair(domain, typ, proto int) ([2]int, error) {
	fds, err := unix.Socketpair(domain, typ|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return fds, err
	}
	adopt(fds[0], typ&unix.SOCK_NONBLOCK != 0)
	adopt(fds[1], typ&unix.SOCK_NONBLOCK != 0)
	return fds, nil
}

// Manage puts a descriptor created elsewhere (a pipe, a socket from another
// library) under the hook layer, as if Socket had made it: it becomes
// non-blocking in the kernel, and stays blocking for the caller unless it
// was non-blocking already. Regular files cannot be managed: they never
// block, and the loop cannot wait on them.
func Manage(fd int) error {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	if flags&unix.O_NONBLOCK == 0 {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags|unix.O_NONBLOCK); err != nil {
			return err
		}
	}
	adopt(fd, flags&unix.O_NONBLOCK != 0)
	return nil
}

func adopt(fd int, nonblock bool) {
	st := &fdState{}
	st.nonblock.Store(nonblock)
	table.set(fd, st)
}

// Connect is connect(2). On a blocking hook descriptor in a hooked
// coroutine, it starts the connection, waits on the loop until the socket
// is writable and reports the outcome (the loop's TryConnect: Linux reports
// the pending error, SO_ERROR, to the retried connect). Elsewhere it blocks
// as connect(2) does, reading SO_ERROR once poll(2) reports the socket
// writable. Either way an expired SO_SNDTIMEO gives what the kernel gives,
// leaving the connection in progress: EINPROGRESS (outside a coroutine,
// EALREADY if a connect was already in progress when the call began).
// ETIMEDOUT comes only from the kernel, when the handshake itself fails.
func Connect(fd int, sa unix.Sockaddr) error {
	st, co, err := prepare(fd)
	if err != nil {
		return err
	}
	if st == nil {
		return unix.Connect(fd, sa)
	}
	d := deadline(&st.wtimeout)
	if co != nil {
		timeout, err := timeoutOf(d)
		if err == nil {
			err = errno(co.ConnectTimeout(fd, sa, timeout))
		}
		if err == unix.EAGAIN {
			return unix.EINPROGRESS // SO_SNDTIMEO expired, as connect(2) reports it
		}
		return err
	}
	err = unix.Connect(fd, sa)
	for err == unix.EINTR {
		err = unix.Connect(fd, sa)
	}
	if err != unix.EINPROGRESS && err != unix.EALREADY {
		return err
	}
	if perr := pollReady(fd, true, d); perr != nil {
		if perr == unix.EAGAIN {
			return err // the kernel's: EINPROGRESS, or EALREADY if it was already
		}
		return perr
	}
	soerr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return err
	}
	if soerr != 0 {
		return unix.Errno(soerr)
	}
	return nil
}

// Accept is accept(2): Accept4 with no flags.
func Accept(fd int) (int, unix.Sockaddr, error) { return Accept4(fd, 0) }

// Accept4 is accept4(2). The new descriptor is a hook descriptor, treated
// as Socket treats its own (SOCK_NONBLOCK in flags makes it non-blocking
// for the caller). On a blocking listening socket in a hooked coroutine it
// waits on the loop for a connection, for at most SO_RCVTIMEO (EAGAIN, as
// from the kernel).
// EMFILE and ENFILE are returned as accept(2) returns them; the caller
// decides how to back off.
func Accept4(fd int, flags int) (int, unix.Sockaddr, error) {
	st, co, err := prepare(fd)
	if err != nil {
		return -1, nil, err
	}
	var nfd int
	var sa unix.Sockaddr
	switch {
	case st == nil:
		nfd, sa, err = unix.Accept4(fd, flags|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	case co != nil:
		var timeout time.Duration
		if timeout, err = timeoutOf(deadline(&st.rtimeout)); err == nil {
			nfd, sa, err = co.AcceptTimeout(fd, timeout)
			err = errno(err)
		}
	default:
		d := deadline(&st.rtimeout)
		for {
			nfd, sa, err = unix.Accept4(fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
			if err == unix.EAGAIN {
				if err = pollReady(fd, false, d); err == nil {
					continue
				}
			}
			if err != unix.EINTR && err != unix.ECONNABORTED {
				break
			}
		}
	}
	if err != nil {
		return -1, nil, err
	}
	adopt(nfd, flags&unix.SOCK_NONBLOCK != 0)
	return nfd, sa, nil
}

// Close is close(2). If the descriptor is registered with a loop, the
// registration is dropped first and every coroutine waiting on it wakes
// with EBADF (libco's hooked close). Called on a goroutine that does not
// run the env serving the descriptor, Close hands the work to that env's
// loop and returns at once; the descriptor is closed when the loop next
// runs. A descriptor used by the hook layer must be closed by this Close,
// or a loop keeps a stale registration under its number.
func Close(fd int) error {
	st := table.remove(fd)
	self := stackful.Self()
	if st != nil {
		if o := st.owner.Load(); o != nil && (self == nil || self.Env().Loop() != o) {
			err := o.Submit(func() {
				if f := o.Lookup(fd); f != nil {
					f.Close()
				} else {
					unix.Close(fd)
				}
			})
			if err == nil {
				return nil
			}
			// The loop is closed, and its registrations are gone with it.
			return unix.Close(fd)
		}
	}
	if self != nil {
		if f := self.Env().Loop().Lookup(fd); f != nil {
			return errno(f.Close())
		}
	}
	return unix.Close(fd)
}

// Detach drops fd's registration with the loop serving it and keeps the
// descriptor open, so that a coroutine of another env can use it (a
// descriptor is served by one env's loop at a time: calls that would wait
// on it in a coroutine of another env fail with EBUSY). Coroutines waiting
// on it wake with EBADF. It must be called on a goroutine of the serving
// env; on another it fails with EBUSY. A descriptor in the loop's
// completion mode (see Read) cannot leave its loop: EOPNOTSUPP.
func Detach(fd int) error {
	st := table.get(fd)
	if st == nil {
		return unix.EBADF
	}
	o := st.owner.Load()
	if o == nil {
		return nil
	}
	if self := stackful.Self(); self == nil || self.Env().Loop() != o {
		return unix.EBUSY
	}
	if f := o.Lookup(fd); f != nil {
		if f.InCompletion() {
			return unix.EOPNOTSUPP // its received bytes are in the loop's buffers
		}
		if err := f.Unregister(); err != nil {
			return errno(err)
		}
	}
	st.owner.Store(nil)
	return nil
}

// FcntlInt is fcntl(2) with an integer argument. On a hook descriptor,
// F_GETFL and F_SETFL show and set the caller's O_NONBLOCK, while the
// descriptor stays non-blocking in the kernel: a descriptor the caller made
// non-blocking makes every call return at once (EAGAIN when it would
// block), in coroutines too, as in libco. Other commands pass through.
func FcntlInt(fd uintptr, cmd, arg int) (int, error) {
	st := table.get(int(fd))
	if st == nil {
		return unix.FcntlInt(fd, cmd, arg)
	}
	switch cmd {
	case unix.F_GETFL:
		flags, err := unix.FcntlInt(fd, cmd, arg)
		if err != nil {
			return flags, err
		}
		flags &^= unix.O_NONBLOCK
		if st.nonblock.Load() {
			flags |= unix.O_NONBLOCK
		}
		return flags, nil
	case unix.F_SETFL:
		r, err := unix.FcntlInt(fd, cmd, arg|unix.O_NONBLOCK)
		if err == nil {
			st.nonblock.Store(arg&unix.O_NONBLOCK != 0)
		}
		return r, err
	}
	return unix.FcntlInt(fd, cmd, arg)
}

// SetsockoptTimeval is setsockopt(2) with a struct timeval. On a hook
// descriptor, SO_RCVTIMEO and SO_SNDTIMEO also become the descriptor's
// timeouts: the longest a read-side call (read, readv, recv*, accept) or a
// write-side call (write, writev, send*, connect) waits. The default is no
// timeout (libco: a fixed second). The kernel gets the option too, so
// GetsockoptTimeval reads it back.
func SetsockoptTimeval(fd, level, opt int, tv *unix.Timeval) error {
	if err := unix.SetsockoptTimeval(fd, level, opt, tv); err != nil {
		return err
	}
	st := table.get(fd)
	if st == nil || level != unix.SOL_SOCKET {
		return nil
	}
	d := time.Duration(tv.Nano())
	switch opt {
	case unix.SO_RCVTIMEO:
		st.rtimeout.Store(int64(d))
	case unix.SO_SNDTIMEO:
		st.wtimeout.Store(int64(d))
	}
	return nil
}

// GetsockoptTimeval is getsockopt(2) with a struct timeval.
func GetsockoptTimeval(fd, level, opt int) (*unix.Timeval, error) {
	return unix.GetsockoptTimeval(fd, level, opt)
}
