//go:build linux

package stackless_test

import (
	"fmt"
	"regexp"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
	"github.com/cogen-go/cogen/runtime/stackless/cogenrt"
)

// RegexpCodec carries a *regexp.Regexp (unexported fields, no
// MarshalBinary) in durable frames as its source text: cogen finds it by
// its type, and generated code calls cogenrt.EncodeWith and DecodeWith
// with it, as grepFrame below does by hand.
var RegexpCodec = stackless.Codec[regexp.Regexp]{
	Marshal: func(re *regexp.Regexp) ([]byte, error) { return []byte(re.String()), nil },
	Unmarshal: func(b []byte, re *regexp.Regexp) error {
		compiled, err := regexp.Compile(string(b))
		if err != nil {
			return err
		}
		*re = *compiled
		return nil
	},
}

// grepFrame is what cogen generates for
//
//	//co:stackless durable
//	func grep(co *stackful.Co, re *regexp.Regexp, lines []string) {
//		for _, line := range lines {
//			co.Yield() // until the line may be matched
//			if canceled { return }
//			fmt.Println(line, re.MatchString(line))
//		}
//	}
//
// with its Step shortened and its encoding inlined.
type grepFrame struct {
	stackless.Base
	re    *regexp.Regexp
	lines []string
}

func (f *grepFrame) Step(t *stackless.Task) stackless.Status {
	for {
		switch f.PC {
		case 0:
			if len(f.lines) == 0 {
				return stackless.Done
			}
			f.PC = 1
		case 1:
			if t.Yield(); t.Blocked() {
				return stackless.Suspend
			}
			if t.Canceled() {
				return stackless.Done
			}
			fmt.Println(f.lines[0], f.re.MatchString(f.lines[0]))
			f.lines = f.lines[1:]
			f.PC = 0
		}
	}
}

func (f *grepFrame) Durable() (string, uint64) { return "example.grep", 1 }

func (f *grepFrame) EncodeState(enc *cogenrt.Encoder) {
	if enc.Ref(f.re) { // the pointer through the pointer table, the value through the codec
		cogenrt.EncodeWith(enc, RegexpCodec.Marshal, f.re)
	}
	enc.Len(len(f.lines), f.lines == nil)
	for _, s := range f.lines {
		enc.String(s)
	}
}

func (f *grepFrame) DecodeState(dec *cogenrt.Decoder) {
	dec.CheckPC(f.PC, 0, 1)
	if _, fresh := dec.Ref(); fresh {
		f.re = new(regexp.Regexp)
		dec.Define(f.re)
		cogenrt.DecodeWith(dec, RegexpCodec.Unmarshal, f.re)
	}
	if n := dec.Len(); n >= 0 {
		f.lines = make([]string, n)
		for i := range f.lines {
			f.lines[i] = dec.String()
		}
	}
}

func init() {
	cogenrt.RegisterDurable("example.grep", 1, func() cogenrt.DurableFrame { return new(grepFrame) })
}

// A frame holding a *regexp.Regexp is snapshotted while it waits in
// Yield, and restored on another loop, where it goes on with an equal
// pattern.
func ExampleCodec() {
	l, _ := loop.New()
	task := stackless.Spawn(l, &grepFrame{re: regexp.MustCompile(`^go+d$`), lines: []string{"good", "bad"}})
	if err := l.RunOnce(); err != nil { // the task's first step: it waits in Yield
		fmt.Println(err)
	}
	data, err := stackless.Snapshot(task)
	if err != nil {
		fmt.Println(err)
		return
	}
	task.Cancel() // the original ends here
	l.Close()

	l2, _ := loop.New()
	defer l2.Close()
	restored, err := stackless.Restore(l2, data)
	if err != nil {
		fmt.Println(err)
		return
	}
	for !restored.Done() {
		restored.Resume()
		if err := l2.RunOnce(); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// good true
	// bad false
}
