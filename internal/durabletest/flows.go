package durabletest

import (
	"fmt"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// Log records one line of a trace; tests replace it.
var Log = func(line string) {}

func logf(format string, args ...any) { Log(fmt.Sprintf(format, args...)) }

func logfString(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// Status is a named integer kind.
type Status int8

// Account is a struct of the package, with unexported fields.
type Account struct {
	name    string
	balance int64
	tags    []string
	limits  [2]uint16
	owner   *Person
	created time.Time // an encoding.BinaryMarshaler
}

// Person is shared between accounts: pointers to one Person stay one
// after a restore.
type Person struct {
	Name  string
	Score float64
	Next  *Person // a ring of people
}

// Ledger runs transfers between accounts that share owners; it sleeps,
// yields and calls durable callees.
//
//co:stackless durable
func Ledger(co *stackful.Co, n int) string {
	alice := &Person{Name: "alice", Score: 1.5}
	bob := &Person{Name: "bob", Next: alice}
	alice.Next = bob
	start := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	accts := []*Account{
		{name: "a1", balance: 100, owner: alice, created: start, limits: [2]uint16{10, 20}},
		{name: "a2", balance: 50, owner: bob, created: start.Add(time.Hour)},
		{name: "a3", balance: 7, owner: alice, tags: []string{"x"}},
	}
	history := map[string][]int64{}
	var st Status
	for i := 0; i < n; i++ {
		from, to := accts[i%3], accts[(i+1)%3]
		amount := transfer(co, from, to, int64(i+1))
		history[from.name] = append(history[from.name], -amount)
		history[to.name] = append(history[to.name], amount)
		st = Status(i % 3)
		logf("ledger i=%d st=%d %s=%d %s=%d", i, st, from.name, from.balance, to.name, to.balance)
		logf("ledger nap %d", i)
		co.Sleep(time.Duration(i%2) * time.Millisecond)
	}
	alice.Score += 1
	summary := fmt.Sprintf("alice=%v bob.next=%s ring=%v same=%v", accts[0].owner.Score, bob.Next.Name, alice.Next.Next == alice, accts[0].owner == accts[2].owner)
	for _, a := range accts {
		summary += fmt.Sprintf(" %s:%d:%v:%v:%s", a.name, a.balance, a.tags, a.limits, a.created.Format(time.RFC3339))
	}
	summary += fmt.Sprintf(" history=%v", history)
	logf("ledger done %s", summary)
	return summary
}

// transfer moves amount between two accounts in two steps, with a
// checkpoint between them.
//
//co:stackless durable
func transfer(co *stackful.Co, from, to *Account, amount int64) int64 {
	if from.balance < amount {
		amount = from.balance
	}
	from.balance -= amount
	from.tags = append(from.tags, fmt.Sprintf("-%d", amount))
	logf("transfer %s -> %s: %d debited", from.name, to.name, amount)
	co.Gosched()
	audit(co, from.owner, amount)
	to.balance += amount
	to.limits[1]++
	logf("transfer %s -> %s: %d credited", from.name, to.name, amount)
	co.Gosched()
	return amount
}

// audit scores an owner, two calls deep.
//
//co:stackless durable
func audit(co *stackful.Co, p *Person, amount int64) {
	var seen [3]bool
	c := complex(float64(amount), 1)
	for i := range 2 {
		seen[i] = true
		p.Score += real(c) / 10
		logf("audit %s %d %.2f %v", p.Name, i, p.Score, seen)
		co.Gosched()
	}
}
