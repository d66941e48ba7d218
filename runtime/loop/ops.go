package loop

// The operations below are the loop's side of every waiting call that the
// two coroutine models offer (read, write, accept, connect, poll). Each Try*
// function attempts the operation without blocking; if it would block, it
// arms the waiter on the fd and reports wait=true, and the caller suspends
// (a stackful coroutine yields to the loop, a stackless frame returns) and
// calls the same Try* function again once woken with Ready. A wake-up with
// any other reason ends the operation with reason.Err(). wait=true always
// comes with a nil error and a waiter that is armed (or, once the loop is
// closed, already woken); an error, including failing to register the fd,
// comes with wait=false. Both models wrap the same functions, so the same
// program means the same thing in both.
//
// The timeout of each follows the package's convention (see Timeouts in the
// package doc): negative waits as long as it takes, zero makes exactly one
// attempt and fails with ErrTimeout instead of waiting (TryPoll reports 0
// ready instead), positive bounds the wait.
//
// Fds are registered on first use and stay registered: close them through
// [FD.Close] (or the models' Close), which wakes their waiters.

// PollFd is one entry of a Poll: poll(2)'s struct pollfd.
type PollFd struct {
	Fd      int
	Events  Events // requested: EventIn, EventOut, EventPri, EventRdHup
	Revents Events // returned, with EventErr, EventHup and EventNval as well
}

// PollState is the per-call state of a Poll that had to wait: one child
// waiter per fd direction, and the fds it registered for this call only.
type PollState struct {
	children []Waiter
	temp     []*FD
}
