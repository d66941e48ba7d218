package durabletest

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// Payload is a named byte slice: it converts to []byte.
type Payload []byte

// Octet is a named byte: a []Octet does not convert to []byte.
type Octet uint8

// Packet holds byte-sized slices and an array as struct fields.
type Packet struct {
	Head  [4]byte
	Body  Payload
	Trail []Octet
}

// Bytes keeps in its frame slices and arrays of every byte-sized element
// kind: []byte nil, empty and full; [N]byte; a named byte slice and a slice
// of a named byte; signed bytes and bools, in slices and arrays; two
// pointers to one [4]byte; a pointer into a byte slice; packets in a map
// keyed by a [2]byte. Each step appends bytes that are not 7-bit (whose
// varints would take two bytes), logs every value, nil-ness included, and
// checkpoints or sleeps.
//
//co:stackless durable
func Bytes(co *stackful.Co, n int) string {
	var none []byte
	empty := []byte{}
	buf := make([]byte, 4, 64) // appends below stay in this array
	copy(buf, "\x00\x7f\x80\xff")
	first := &buf[0] // never written again: only its value is logged
	var fixed [6]byte
	named := Payload("héllo")
	var namedNil Payload
	octets := []Octet{0, 127, 128, 255}
	signed := []int8{-128, -1, 0, 127}
	var signedArr [3]int8
	flags := []bool{true, false}
	var noFlags []bool
	var flagArr [3]bool
	arr := &[4]byte{1, 2, 3, 4}
	alias := arr
	pkts := map[[2]byte]Packet{{'a', 0x80}: {Head: [4]byte{0xde, 0xad}, Body: Payload{}}}
	for i := range n {
		b := byte(i*37 + 200)
		buf = append(buf, b)
		fixed[i%len(fixed)] ^= b
		named = append(named, b)
		octets = append(octets, Octet(b))
		signed = append(signed, int8(b))
		signedArr[i%3] -= int8(b)
		flags = append(flags, i%3 == 0)
		flagArr[i%3] = !flagArr[i%3]
		alias[i%4] += b
		p := pkts[[2]byte{'a', 0x80}]
		p.Head[i%4]++
		p.Body = append(p.Body, b, ^b)
		p.Trail = append(p.Trail, Octet(i))
		pkts[[2]byte{'a', 0x80}] = p
		pkts[[2]byte{'k', b}] = Packet{Head: [4]byte{b}, Trail: []Octet{}}
		logf("bytes i=%d %s", i, show(
			"none", none, "empty", empty, "buf", buf, "first", *first, "fixed", fixed,
			"named", named, "namedNil", namedNil, "octets", octets, "signed", signed,
			"signedArr", signedArr, "flags", flags, "noFlags", noFlags, "flagArr", flagArr,
			"arr", *arr, "shared", arr == alias, "pkts", pkts))
		if i%2 == 0 {
			co.Gosched()
		} else {
			logf("bytes nap %d", i)
			co.Sleep(time.Millisecond)
		}
	}
	none = []byte{}
	out := show("none", none, "buf", buf, "named", named, "arr", *arr, "shared", arr == alias)
	logf("bytes done %s", out)
	return out
}

// show formats name-value pairs, nil slices as nil (fmt prints them as
// empty ones), and the Body and Trail of packets likewise.
func show(pairs ...any) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		fmt.Fprintf(&b, "%s=%s ", pairs[i], showValue(pairs[i+1]))
	}
	return strings.TrimSuffix(b.String(), " ")
}

func showValue(v any) string {
	switch v := v.(type) {
	case map[[2]byte]Packet:
		var parts []string
		for _, k := range sortedKeys(v) {
			p := v[k]
			parts = append(parts, fmt.Sprintf("%q:{%v %s %s}", k[:], p.Head, showValue(p.Body), showValue(p.Trail)))
		}
		return "map[" + strings.Join(parts, " ") + "]"
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.IsNil() {
		return "nil"
	}
	return fmt.Sprintf("%v", v)
}

func sortedKeys(m map[[2]byte]Packet) [][2]byte {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b [2]byte) int { return cmp.Compare(string(a[:]), string(b[:])) })
	return keys
}

// Alias writes through a pointer into a byte slice after a checkpoint:
// restored from a snapshot taken there, the pointer points into the
// restored slice's array, and the write reaches the slice.
//
//co:stackless durable
func Alias(co *stackful.Co) string {
	buf := []byte{1, 2, 3}
	p := &buf[1]
	logf("alias before %v %d", buf, *p)
	co.Gosched()
	*p = 9
	out := fmt.Sprintf("%v %d", buf, *p)
	logf("alias after %s", out)
	return out
}
