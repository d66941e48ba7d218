//go:build linux

package stackless

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackless/cogenrt"
)

// patternFrame is written by hand in the shape cogen generates for a
// durable function whose frame holds values that codecs carry:
//
//	func pattern(co *stackful.Co, expr string) {
//		re := regexp.MustCompile(expr)
//		same := re        // one *regexp.Regexp, reached twice
//		var err error     // carried by errorCodec
//		for i := range 3 { trace(...); co.Gosched(); err = ... }
//	}
type patternFrame struct {
	Base
	re, same *regexp.Regexp
	err      error
	i        int
}

var (
	regexpCodec = Codec[regexp.Regexp]{
		Marshal: func(x *regexp.Regexp) ([]byte, error) { return []byte(x.String()), nil },
		Unmarshal: func(b []byte, x *regexp.Regexp) error {
			re, err := regexp.Compile(string(b))
			if err != nil {
				return err
			}
			*x = *re
			return nil
		},
	}
	// errorCodec carries an error as its text; nil stays nil.
	errorCodec = Codec[error]{
		Marshal: func(x *error) ([]byte, error) {
			if *x == nil {
				return nil, nil
			}
			return append([]byte{1}, (*x).Error()...), nil
		},
		Unmarshal: func(b []byte, x *error) error {
			switch {
			case len(b) == 0:
				*x = nil
			case b[0] == 1:
				*x = errors.New(string(b[1:]))
			default:
				return fmt.Errorf("bad error tag %d", b[0])
			}
			return nil
		},
	}
)

func (f *patternFrame) Step(t *Task) Status {
	for {
		switch f.PC {
		case 0:
			if f.re == nil {
				f.re = regexp.MustCompile(`a+b`)
				f.same = f.re
			}
			if f.i == 3 {
				trace(t, "pattern done same=%v err=%v", f.re == f.same, f.err)
				return Done
			}
			trace(t, "pattern %d %s %v err=%v", f.i, f.re, f.re.MatchString(strings.Repeat("a", f.i)+"b"), f.err)
			f.PC = 1
		case 1:
			suspending(t)
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			f.err = fmt.Errorf("step %d", f.i)
			f.i++
			f.PC = 0
		default:
			panic("patternFrame: invalid resume point")
		}
	}
}

func (f *patternFrame) Durable() (string, uint64) { return "stackless_test.pattern", 0xc0dec }

func (f *patternFrame) EncodeState(e *Encoder) {
	for _, p := range []*regexp.Regexp{f.re, f.same} {
		if e.Ref(p) {
			cogenrt.EncodeWith(e, regexpCodec.Marshal, p)
		}
	}
	cogenrt.EncodeWith(e, errorCodec.Marshal, &f.err)
	e.Int(int64(f.i))
}

func (f *patternFrame) DecodeState(d *Decoder) {
	d.CheckPC(f.PC, 0, 1)
	for _, p := range []**regexp.Regexp{&f.re, &f.same} {
		switch v, fresh := d.Ref(); {
		case fresh:
			*p = new(regexp.Regexp)
			d.Define(*p)
			cogenrt.DecodeWith(d, regexpCodec.Unmarshal, *p)
		case v != nil:
			re, ok := v.(*regexp.Regexp)
			if !ok {
				d.WrongType("*regexp.Regexp", v)
				return
			}
			*p = re
		}
	}
	cogenrt.DecodeWith(d, errorCodec.Unmarshal, &f.err)
	f.i = int(d.IntN(64))
}

func init() {
	RegisterDurable("stackless_test.pattern", 0xc0dec, func() DurableFrame { return new(patternFrame) })
}

// TestCodecEverySuspension: values carried by codecs, one of them behind
// a pointer reached twice, restore at every suspension point to a run with
// the uninterrupted trace, the pointer still shared.
func TestCodecEverySuspension(t *testing.T) {
	job := func() Frame { return new(patternFrame) }
	l, want := tracedLoop(t)
	run(t, l, 10*time.Second, Spawn(l, job()))
	if len(*want) != 4 || (*want)[3] != "pattern done same=true err=step 2" {
		t.Fatalf("uninterrupted trace: %q", *want)
	}
	for k := 1; k <= 3; k++ {
		data, prefix, ok := snapshotAt(t, k, job)
		if !ok {
			t.Fatalf("no suspension %d", k)
		}
		l2, tr2 := tracedLoop(t)
		task, err := Restore(l2, data)
		if err != nil {
			t.Fatalf("Restore at suspension %d: %v", k, err)
		}
		f := task.top.(*patternFrame)
		if f.re != f.same || f.re.String() != "a+b" {
			t.Fatalf("suspension %d: re %p %v, same %p", k, f.re, f.re, f.same)
		}
		run(t, l2, 10*time.Second, task)
		if got := append(prefix, *tr2...); !slices.Equal(got, *want) {
			t.Errorf("suspension %d (%d bytes):\n got %q\nwant %q", k, len(data), got, *want)
		}
	}
}

// TestCodecErrors: a codec's error or panic, or a codec without its
// functions, fails the Snapshot or the Restore with an error naming the
// frame and the type; neither panics.
func TestCodecErrors(t *testing.T) {
	good := regexpCodec
	t.Cleanup(func() { regexpCodec = good })
	data, _, ok := snapshotAt(t, 2, func() Frame { return new(patternFrame) })
	if !ok {
		t.Fatal("no snapshot")
	}
	for _, tc := range []struct {
		name  string
		codec Codec[regexp.Regexp]
		want  string // in Restore's error, or in Snapshot's if snap
		snap  bool
	}{
		{"Marshal error", Codec[regexp.Regexp]{Marshal: func(*regexp.Regexp) ([]byte, error) { return nil, errors.New("no room") }, Unmarshal: good.Unmarshal},
			"stackless: Snapshot: frame of stackless_test.pattern: Codec[regexp.Regexp].Marshal: no room", true},
		{"no Marshal", Codec[regexp.Regexp]{Unmarshal: good.Unmarshal},
			"frame of stackless_test.pattern: the Codec[regexp.Regexp] has no Marshal", true},
		{"Unmarshal error", Codec[regexp.Regexp]{Marshal: good.Marshal, Unmarshal: func([]byte, *regexp.Regexp) error { return errors.New("bad pattern") }},
			"stackless: Restore: frame of stackless_test.pattern: Codec[regexp.Regexp].Unmarshal: bad pattern", false},
		{"Unmarshal panic", Codec[regexp.Regexp]{Marshal: good.Marshal, Unmarshal: func(b []byte, _ *regexp.Regexp) error { _ = b[100]; return nil }},
			"stackless: Restore: frame of stackless_test.pattern: Codec[regexp.Regexp].Unmarshal: panic: runtime error: index out of range [100]", false},
		{"no Unmarshal", Codec[regexp.Regexp]{Marshal: good.Marshal},
			"frame of stackless_test.pattern: the Codec[regexp.Regexp] has no Unmarshal", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			regexpCodec = tc.codec
			defer func() { regexpCodec = good }()
			if tc.snap {
				_, _, _, err := trySnapshotAt(t, 2, func() Frame { return new(patternFrame) })
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Snapshot: %v, want %q", err, tc.want)
				}
				return
			}
			_, err := Restore(newLoop(t), data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Restore: %v, want %q", err, tc.want)
			}
		})
	}
	// The error codec's own check of its bytes: a bad tag, with the
	// checksum fixed, is an error too.
	i := strings.LastIndex(string(data), "step ") - 1
	if i < 0 || data[i] != 1 {
		t.Fatalf("no carried error in %q", data)
	}
	bad := slices.Clone(data)
	bad[i] = 9
	if _, err := Restore(newLoop(t), fixCRC(bad)); err == nil || !strings.Contains(err.Error(), "Codec[error].Unmarshal: bad error tag 9") {
		t.Fatalf("Restore of a bad error tag: %v", err)
	}
}
