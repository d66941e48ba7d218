package unsafeops

import (
	"unsafe"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run checks that the unsafe builtins read their operands late, as gc
// does (they are not calls to its order pass): a suspending call to their
// right that changes the operands is seen by them.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	one, two := []byte("one"), []byte("two")
	p := &one[0]
	t.Printf("string %s %d", unsafe.String(p, 3), setPtr(co, &p, &two[0]))
	n := 1
	arr := []int{1, 2, 3}
	t.Printf("slice %v %d", unsafe.Slice(&arr[0], n), setInt(co, &n, 3))
	off := uintptr(0)
	base := unsafe.Pointer(&arr[0])
	t.Printf("add %d %d", *(*int)(unsafe.Add(base, off)), setUintptr(co, &off, unsafe.Sizeof(arr[0])))
	t.Printf("add2 %d %d", *(*int)(unsafe.Add(base, off)), setUintptr(co, &off, 2*unsafe.Sizeof(arr[0])))
	s := "abc"
	t.Printf("stringdata %c %d", *unsafe.StringData(s), setString(co, &s, "xyz"))
	sl := []int{7}
	t.Printf("slicedata %d %d", *unsafe.SliceData(sl), setSlice(co, &sl, []int{8}))
	t.Printf("in a literal %v", []string{unsafe.String(p, 3), string(one), setS(co, &p, &one[0])})
}

//co:stackless
func setPtr(co *stackful.Co, p **byte, v *byte) int {
	co.Gosched()
	*p = v
	return 0
}

//co:stackless
func setInt(co *stackful.Co, p *int, v int) int {
	co.Gosched()
	*p = v
	return 0
}

//co:stackless
func setUintptr(co *stackful.Co, p *uintptr, v uintptr) int {
	co.Gosched()
	*p = v
	return 0
}

//co:stackless
func setString(co *stackful.Co, p *string, v string) int {
	co.Gosched()
	*p = v
	return 0
}

//co:stackless
func setSlice(co *stackful.Co, p *[]int, v []int) int {
	co.Gosched()
	*p = v
	return 0
}

//co:stackless
func setS(co *stackful.Co, p **byte, v *byte) string {
	co.Gosched()
	*p = v
	return "set"
}
