package methodclosures

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type account struct {
	balance int
	log     []string
}

// Run covers defers and closures that suspend in marked methods: deferred
// closures and suspending closures that capture the receiver and change
// its fields.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	a := &account{balance: 10 + t.Rand.Intn(10)}
	a.deposit(co, 5)
	err := a.withdraw(co, 100)
	t.Printf("withdraw: %v, balance %d, log %v", err, a.balance, a.log)
	err = a.withdraw(co, 3)
	t.Printf("withdraw: %v, balance %d, log %v", err, a.balance, a.log)
}

//co:stackless
func (a *account) deposit(co *stackful.Co, n int) {
	defer func() { a.log = append(a.log, "deposit") }()
	co.Gosched()
	a.balance += n
}

type overdraft struct{ want, have int }

//co:stackless
func (a *account) withdraw(co *stackful.Co, n int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			a.log = append(a.log, "refused")
			err = errOverdraft
		}
	}()
	take := func() {
		co.Gosched()
		if a.balance < n {
			panic(overdraft{n, a.balance})
		}
		a.balance -= n
	}
	take()
	a.log = append(a.log, "withdraw")
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

const errOverdraft = errString("overdraft")
