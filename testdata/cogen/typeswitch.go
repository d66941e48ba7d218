package typeswitch

import (
	"errors"
	"fmt"
	"io"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type celsius float64

func (c celsius) String() string { return fmt.Sprintf("%.1fC", float64(c)) }

// Run covers type switches with suspension points: bound and unbound
// variables, multi-type clauses, nil, default, and a guard that suspends.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	values := []any{1, "two", celsius(3), nil, errors.New("four"), io.EOF, 5.5, []int{6}}
	for i := 0; i < 10; i++ {
		v := values[t.Rand.Intn(len(values))]
		switch x := pass(co, v).(type) {
		case int:
			co.Gosched()
			t.Printf("int %d", x+1)
		case string, fmt.Stringer:
			co.Gosched()
			t.Printf("stringish %v", x)
		case nil:
			t.Printf("nil %v", x)
		case error:
			co.Gosched()
			t.Printf("error %s", x.Error())
		default:
			t.Printf("other %T", x)
		}
		switch v.(type) {
		case float64:
			co.Gosched()
			t.Printf("unbound float")
		}
	}
}

//co:stackless
func pass(co *stackful.Co, v any) any {
	co.Gosched()
	return v
}
