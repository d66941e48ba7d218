package cogenrt

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"unsafe"
)

// The object model of a snapshot. Values reached from the frames through
// pointers, slices and maps live in regions: a frame of the task, the
// object a pointer points into, the backing array of slices, a map. Each
// region gets an id the first time it is mentioned (the frames have ids
// 1..n, outermost first); a pointer or a slice is written as its region's
// id and the path from the region's root to what it designates, so that
// two pointers into one value, a pointer into a frame's variable, a
// pointer to a struct field or a slice element, and slices sharing an
// array restore sharing exactly what they shared. The contents of a region
// are not written where it is mentioned but queued, and written after the
// frames' states in the order the regions were rooted: encoding and
// decoding use an explicit work list, never recursion along pointers, so a
// list of millions of nodes or a cycle costs no stack.
//
// A mention of a region is written as:
//
//	id       uvarint (0: a nil pointer or map)
//	root     one byte, present while the region is not yet allocated by the
//	         reader: 1 if this mention allocates it (a pointer to its whole
//	         value, a slice of its elements' type, a map), then for an
//	         array of slices the number of its elements (uvarint); 0 if it is
//	         a reference to a region allocated later in the stream
//	path     (pointers and slices) uvarint count, then count uvarints: struct
//	         field indices and array element indices from the region's root
//	slice    (slices) the index of the slice's first element in the array
//	         the path reached, its length and its capacity (uvarints)
//
// A slice starts with a uvarint tag: 0 nil, 1 non-nil of capacity 0 (no
// region), 2 a mention. After the frames, the queued contents follow: for
// a pointer's region, the value as its type's encoding writes it; for an
// array of slices, its elements; for a map, its number of entries
// (uvarint) and its keys and values.
//
// A region is found by address: the encoder first walks the values
// reached, recording the memory span each pointer, slice and frame covers.
// If no two spans overlap (the usual case) that walk's bytes are the
// snapshot; otherwise overlapping spans are merged into one region (the
// span that covers them all, or for slices of one element type the union
// of their arrays) and the values are walked and written again.

const (
	spanObj   uint8 = iota // the value a pointer points to
	spanArr                // a slice's backing array, from its first element to its capacity
	spanFrame              // a frame of the task
)

type spanKey struct {
	start, end uintptr
	typ        reflect.Type // the pointee's, the array's element's or the frame's type
	kind       uint8
}

type span struct {
	spanKey
	n    int            // spanArr: its number of elements
	base unsafe.Pointer // the first byte: keeps the object alive
	// content writes the value of a spanObj; arrContent the n elements at
	// base of a spanArr's element type.
	content    func(e *Encoder)
	arrContent func(e *Encoder, base unsafe.Pointer, n int)
	reg        *region
	own        region // reg until merge gives it another
}

type region struct {
	root   *span // the span whose mention allocates it
	id     uint64
	rooted bool // the reader has allocated it (mentioned by its root)
}

type mapKey struct{ p unsafe.Pointer }

// graph is the Encoder's object table.
type graph struct {
	spans  map[spanKey]*span
	list   []*span // non-empty spans, in order of discovery
	frames []*span
	dfs    []DurableFrame
	// framesDone: the frames' spans are recorded (frameSpans).
	framesDone bool
	maps       map[mapKey]*region
	queue      []queued
	nextID     uint64
	merged     bool // the second walk: spans have their final regions
}

func (e *Encoder) addSpan(s *span) {
	if e.g.spans == nil {
		e.g.spans = map[spanKey]*span{}
	}
	e.g.spans[s.spanKey] = s
	if s.end > s.start {
		e.g.list = append(e.g.list, s)
	}
}

// beginFrames starts the walks of the task's frames, outermost first,
// which are regions 1..n. Their spans are recorded only once a pointer or
// a slice is met (frameSpans): a task without any costs no table.
func (e *Encoder) beginFrames(dfs []DurableFrame) {
	e.g.dfs = dfs
	e.resetIDs()
}

// frameSpans records the frames' spans (not in e.g.spans: no pointer is
// looked up as a frame).
func (e *Encoder) frameSpans() {
	e.g.framesDone = true
	for i, f := range e.g.dfs {
		v := reflect.ValueOf(f)
		start := v.Pointer()
		t := v.Type().Elem()
		s := &span{spanKey: spanKey{start, start + t.Size(), t, spanFrame}, base: v.UnsafePointer()}
		s.own = region{root: s, rooted: true, id: uint64(i + 1)}
		s.reg = &s.own
		e.g.list = append(e.g.list, s)
		e.g.frames = append(e.g.frames, s)
	}
}

// resetIDs starts a walk: frames are regions 1..n, nothing else is
// mentioned yet.
func (e *Encoder) resetIDs() {
	for _, s := range e.g.spans {
		s.reg.id, s.reg.rooted = 0, false
	}
	for i, s := range e.g.frames {
		s.reg.id, s.reg.rooted = uint64(i+1), true
	}
	e.g.nextID = uint64(len(e.g.dfs))
	e.g.maps = nil
	e.g.queue = e.g.queue[:0]
}

// A queued content: what writes or reads it, and the frame (index,
// outermost 0) that reached its region first, which errors name.
type queued struct {
	enc   func(e *Encoder)
	dec   func()
	frame int
}

// drain writes the queued contents, in order; contents queue more.
func (e *Encoder) drain() {
	for i := 0; i < len(e.g.queue) && e.err == nil; i++ {
		e.frame = e.g.queue[i].frame
		e.g.queue[i].enc(e)
		e.g.queue[i] = queued{}
	}
}

// overlapping reports whether two spans share bytes.
func (e *Encoder) overlapping() bool {
	slices.SortFunc(e.g.list, func(a, b *span) int {
		switch {
		case a.start != b.start:
			if a.start < b.start {
				return -1
			}
			return 1
		case a.end != b.end:
			if a.end > b.end {
				return -1
			}
			return 1
		}
		return 0
	})
	var end uintptr
	for i, s := range e.g.list {
		if i > 0 && s.start < end {
			return true
		}
		end = max(end, s.end)
	}
	return false
}

// merge gives the spans their final regions: each group of overlapping
// spans becomes one region, rooted at the span covering the group (a
// frame or a pointer's value first), or for slices of one element type at
// a span made for the union of their arrays. e.g.list is sorted.
func (e *Encoder) merge() error {
	list := e.g.list
	for i := 0; i < len(list); {
		j, end := i+1, list[i].end
		for j < len(list) && list[j].start < end {
			end = max(end, list[j].end)
			j++
		}
		group := list[i:j]
		i = j
		if len(group) == 1 {
			continue
		}
		var root *span
		for _, s := range group {
			if s.start == group[0].start && s.end == end && (root == nil || root.kind == spanArr && s.kind != spanArr) {
				root = s
			}
		}
		if root == nil {
			var arr *span
			for _, s := range group {
				if s.kind == spanArr {
					if arr == nil {
						arr = s
					}
					es := s.typ.Size()
					if s.typ != arr.typ || (s.start-group[0].start)%es != 0 {
						return fmt.Errorf("slices of %v and %v share memory, which cannot be carried", arr.typ, s.typ)
					}
				}
			}
			if arr == nil || (end-group[0].start)%arr.typ.Size() != 0 {
				return fmt.Errorf("pointers of types %v and %v into one value overlap without one containing the other, which cannot be carried", group[0].typ, group[1].typ)
			}
			n := int((end - group[0].start) / arr.typ.Size())
			// Safety: the spans of the group overlap pairwise along a
			// chain, so they lie in one Go allocation, which therefore
			// holds every byte from the group's first to its last;
			// every array span has arr's element type and starts a
			// whole number of elements after the first byte, so the n
			// elements from there are elements of one array.
			root = &span{spanKey: spanKey{group[0].start, end, arr.typ, spanArr}, n: n, base: group[0].base, arrContent: arr.arrContent}
		}
		reg := root.reg
		if reg == nil || reg.root != root {
			reg = &region{root: root}
		}
		for _, s := range group {
			if s.kind == spanFrame && s != root {
				return errors.New("a frame inside another value (cannot happen)")
			}
			s.reg = reg
		}
	}
	e.g.merged = true
	return nil
}

// mention writes the reference to s's region (the id, and while the reader
// has not allocated it, whether this mention does) and, when it does,
// queues the region's content.
func (e *Encoder) mention(s *span) {
	r := s.reg
	if r.id == 0 {
		e.g.nextID++
		r.id = e.g.nextID
		e.charge(regionCost)
	}
	e.Uint(r.id)
	if r.rooted {
		return
	}
	root := r.root
	switch {
	case root == s && s.kind == spanObj:
		e.charge(cost(uint64(s.typ.Size())) + queueCost)
		e.buf = append(e.buf, 1)
		e.g.queue = append(e.g.queue, queued{enc: root.content, frame: e.frame})
	case root.kind == spanArr && s.kind == spanArr && s.typ == root.typ:
		e.charge(sliceCost(root.n, uint64(root.typ.Size())) + queueCost)
		e.buf = append(e.buf, 1)
		e.Uint(uint64(root.n))
		content := s.arrContent
		e.g.queue = append(e.g.queue, queued{enc: func(e *Encoder) { content(e, root.base, root.n) }, frame: e.frame})
	default:
		e.buf = append(e.buf, 0)
		return
	}
	r.rooted = true
}

// path writes the path from s's region's root to s's value (a pointer) or
// to the array holding s's elements and s's first index (a slice).
func (e *Encoder) path(s *span) (start uintptr) {
	root := s.reg.root
	if root == s {
		e.Uint(0)
		return 0
	}
	off := s.start - root.start
	var path []uint64
	ok := true
	t := root.typ
	if root.kind == spanArr {
		es := t.Size()
		switch {
		case s.kind == spanArr && s.typ == t:
			start, ok = off/es, off%es == 0
		case s.kind == spanArr:
			path, start, ok = arrayPath([]uint64{uint64(off / es)}, t, off%es, s.end-s.start, s.typ)
		default:
			path, ok = typePath([]uint64{uint64(off / es)}, t, off%es, s.typ)
		}
	} else if s.kind == spanArr {
		path, start, ok = arrayPath(nil, t, off, s.end-s.start, s.typ)
	} else {
		path, ok = typePath(nil, t, off, s.typ)
	}
	if !ok {
		what := "a pointer to " + s.typ.String()
		if s.kind == spanArr {
			what = "a slice of " + s.typ.String()
		}
		e.Fail(fmt.Errorf("%s points into a %v at byte %d, not at a value of its type: such aliasing cannot be carried", what, root.typ, off))
		return 0
	}
	e.Uint(uint64(len(path)))
	e.charge(cost(8 * uint64(len(path))))
	for _, i := range path {
		e.Uint(i)
	}
	return start
}

// typePath appends the steps from a value of type t to the value of type
// want at byte off of it.
func typePath(path []uint64, t reflect.Type, off uintptr, want reflect.Type) ([]uint64, bool) {
	for off != 0 || t != want {
		switch t.Kind() {
		case reflect.Struct:
			i, ok := fieldAt(t, off, 1)
			if !ok {
				return nil, false
			}
			f := t.Field(i)
			path, t, off = append(path, uint64(i)), f.Type, off-f.Offset
		case reflect.Array:
			es := t.Elem().Size()
			if es == 0 || off >= t.Size() {
				return nil, false
			}
			path, t, off = append(path, uint64(off/es)), t.Elem(), off%es
		default:
			return nil, false
		}
	}
	return path, true
}

// arrayPath appends the steps from a value of type t to the array of elem
// that holds the size bytes at off, and returns the index of the element
// at off.
func arrayPath(path []uint64, t reflect.Type, off, size uintptr, elem reflect.Type) ([]uint64, uintptr, bool) {
	for {
		if t.Kind() == reflect.Array && t.Elem() == elem && off%elem.Size() == 0 && off+size <= t.Size() {
			return path, off / elem.Size(), true
		}
		if t == elem && off == 0 && size == elem.Size() { // a slice of one element, a variable's
			return path, 0, true
		}
		switch t.Kind() {
		case reflect.Struct:
			i, ok := fieldAt(t, off, size)
			if !ok {
				return nil, 0, false
			}
			f := t.Field(i)
			path, t, off = append(path, uint64(i)), f.Type, off-f.Offset
		case reflect.Array:
			es := t.Elem().Size()
			if es == 0 || off/es != (off+size-1)/es || off >= t.Size() {
				return nil, 0, false
			}
			path, t, off = append(path, uint64(off/es)), t.Elem(), off%es
		default:
			return nil, 0, false
		}
	}
}

// fieldAt returns the field of struct type t holding the size bytes at off.
func fieldAt(t reflect.Type, off, size uintptr) (int, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Size() > 0 && off >= f.Offset && off+size <= f.Offset+f.Type.Size() {
			return i, true
		}
	}
	return 0, false
}

// findSpan returns the span of key, recording a new one with its own
// region in the first walk.
func (e *Encoder) findSpan(key spanKey, make func() *span) *span {
	if !e.g.framesDone {
		e.frameSpans()
	}
	if s := e.g.spans[key]; s != nil {
		return s
	}
	if e.g.merged {
		e.Fail(errors.New("a value reached only in the second walk (was it changed by a Marshal?)"))
		return nil
	}
	s := make()
	s.spanKey = key
	s.own.root = s
	s.reg = &s.own
	e.addSpan(s)
	return s
}

// EncodePtr writes the pointer p: nil, or a mention of the region it
// points into and the path to its value there. The first time p's value
// is reached, content is queued to write it (generated EncodeState
// methods pass their encoding of E).
func EncodePtr[E any](e *Encoder, p *E, content func(e *Encoder, p *E)) {
	if e.err != nil {
		return
	}
	if p == nil {
		e.Uint(0)
		return
	}
	t := reflect.TypeFor[E]()
	start := uintptr(unsafe.Pointer(p))
	s := e.findSpan(spanKey{start, start + t.Size(), t, spanObj}, func() *span {
		return &span{base: unsafe.Pointer(p), content: func(e *Encoder) { content(e, p) }}
	})
	if s == nil {
		return
	}
	e.mention(s)
	e.path(s)
	e.charge(fixCost)
}

// EncodeSlice writes the slice s: its tag, then (unless it is nil or has
// no capacity) a mention of the array it lies in, the path to it, and its
// first index, length and capacity. The first time an array is rooted,
// content is queued to write its elements.
func EncodeSlice[E any](e *Encoder, s []E, content func(e *Encoder, s []E)) {
	if e.err != nil {
		return
	}
	switch {
	case s == nil:
		e.Uint(0)
		return
	case cap(s) == 0:
		e.Uint(1)
		return
	}
	t := reflect.TypeFor[E]()
	if t.Size() == 0 { // no state but the length and capacity
		e.Uint(3)
		e.Uint(uint64(len(s)))
		e.Uint(uint64(cap(s)))
		return
	}
	e.Uint(2)
	base := unsafe.Pointer(unsafe.SliceData(s))
	start := uintptr(base)
	sp := e.findSpan(spanKey{start, start + uintptr(cap(s))*t.Size(), t, spanArr}, func() *span {
		return &span{n: cap(s), base: base, arrContent: func(e *Encoder, base unsafe.Pointer, n int) {
			// Safety: base and n describe the array of a span
			// (see merge for the union of several), whose
			// elements are of type E.
			content(e, unsafe.Slice((*E)(base), n))
		}}
	})
	if sp == nil {
		return
	}
	e.mention(sp)
	first := e.path(sp)
	e.charge(fixCost)
	e.Uint(uint64(first))
	e.Uint(uint64(len(s)))
	e.Uint(uint64(cap(s)))
}

// EncodeMap writes the map m: nil, or a mention of it; the first time m is
// reached its entries are queued: their number, then each key and value
// as entry writes them.
func EncodeMap[M ~map[K]V, K comparable, V any](e *Encoder, m M, entry func(e *Encoder, k *K, v *V)) {
	if e.err != nil {
		return
	}
	if m == nil {
		e.Uint(0)
		return
	}
	e.charge(fixCost)
	key := mapKey{reflect.ValueOf(m).UnsafePointer()}
	if r := e.g.maps[key]; r != nil {
		e.Uint(r.id)
		return
	}
	if e.g.maps == nil {
		e.g.maps = map[mapKey]*region{}
	}
	e.g.nextID++
	e.g.maps[key] = &region{id: e.g.nextID, rooted: true}
	e.Uint(e.g.nextID)
	e.charge(regionCost + queueCost + mapCost(0, 0, 0))
	e.buf = append(e.buf, 1)
	e.g.queue = append(e.g.queue, queued{enc: func(e *Encoder) {
		e.Uint(uint64(len(m)))
		e.charge(mapEntriesCost[K, V](uint64(len(m))))
		var kk K
		var vv V
		for k, v := range m {
			kk, vv = k, v
			entry(e, &kk, &vv)
		}
	}, frame: e.frame})
}

// dregion is a region as the Decoder sees it.
type dregion struct {
	v      reflect.Value // addressable root; invalid until allocated
	ptr    any           // what allocated it: *E, []E, a map, a frame; or what Define set
	fixups []func(v reflect.Value)
}

// mention reads a region's mention: nil for id 0; root reports that the
// caller must allocate the region now.
func (d *Decoder) mention() (r *dregion, root bool) {
	id := d.Uint()
	if d.err != nil || id == 0 {
		return nil, false
	}
	switch {
	case id == uint64(len(d.regions))+1:
		if !d.charge(regionCost) {
			return nil, false
		}
		d.regions = append(d.regions, &dregion{})
	case id > uint64(len(d.regions)):
		d.Fail(fmt.Errorf("region id %d out of order", id))
		return nil, false
	}
	r = d.regions[id-1]
	if r.ptr != nil {
		return r, false
	}
	if len(d.buf) == 0 {
		d.Fail(errTruncated)
		return nil, false
	}
	flag := d.buf[0]
	d.buf = d.buf[1:]
	if flag > 1 {
		d.Fail(fmt.Errorf("bad root byte %d", flag))
		return nil, false
	}
	return r, flag == 1
}

// allocate sets r's root and resolves the references read before it.
func (d *Decoder) allocate(r *dregion, v reflect.Value, ptr any) {
	r.v, r.ptr = v, ptr
	if r.fixups != nil {
		d.pending--
	}
	for _, f := range r.fixups {
		f(v)
	}
	r.fixups = nil
}

// resolve calls f with r's root now, or once r is allocated.
func (d *Decoder) resolve(r *dregion, f func(v reflect.Value)) {
	if r.ptr != nil {
		f(r.v)
		return
	}
	if r.fixups == nil {
		d.pending++
	}
	r.fixups = append(r.fixups, f)
	d.nfix++
}

// readPath reads a path: its length is bounded by the bytes left.
func (d *Decoder) readPath() []uint64 {
	n := d.Uint()
	if d.err != nil || n == 0 {
		return nil
	}
	if n > uint64(len(d.buf)) {
		d.Fail(errTruncated)
		return nil
	}
	if !d.charge(cost(8 * n)) {
		return nil
	}
	path := make([]uint64, n)
	for i := range path {
		path[i] = d.Uint()
	}
	return path
}

// walk follows path from v; it fails on a step out of range.
func (d *Decoder) walk(v reflect.Value, path []uint64) (reflect.Value, bool) {
	for depth, i := range path {
		switch v.Kind() {
		case reflect.Struct:
			if i >= uint64(v.NumField()) {
				d.Fail(fmt.Errorf("field %d of a %v", i, v.Type()))
				return v, false
			}
			v = v.Field(int(i))
		case reflect.Array, reflect.Slice:
			if v.Kind() == reflect.Slice && depth > 0 {
				d.Fail(errors.New("a path through a slice inside a region"))
				return v, false
			}
			if i >= uint64(v.Len()) {
				d.Fail(fmt.Errorf("element %d of a %v of %d", i, v.Type(), v.Len()))
				return v, false
			}
			v = v.Index(int(i))
		default:
			d.Fail(fmt.Errorf("a path through a %v", v.Type()))
			return v, false
		}
	}
	return v, true
}

// DecodePtr reads what [EncodePtr] wrote into *x. A pointer into a region
// allocated later in the stream is set when it is.
func DecodePtr[E any](d *Decoder, x **E, content func(d *Decoder, p *E)) {
	*x = nil
	r, root := d.mention()
	if d.err != nil || r == nil {
		return
	}
	if root {
		if !d.charge(cost(sizeOf[E]()) + queueCost) {
			return
		}
		p := new(E)
		d.allocate(r, reflect.ValueOf(p).Elem(), p)
		d.queue = append(d.queue, queued{dec: func() { content(d, p) }, frame: d.frame})
	}
	path := d.readPath()
	if d.err != nil || !d.charge(fixCost) {
		return
	}
	if len(path) == 0 {
		if p, ok := r.ptr.(*E); ok {
			*x = p
			return
		}
	}
	d.resolve(r, func(v reflect.Value) {
		v, ok := d.walk(v, path)
		if !ok {
			return
		}
		if v.Type() != reflect.TypeFor[E]() || !v.CanAddr() {
			d.Fail(fmt.Errorf("a %v where a pointer to %v points", v.Type(), reflect.TypeFor[E]()))
			return
		}
		// Safety: v is an addressable value of type E inside a region
		// this decoder allocated: its address is a valid *E, which
		// keeps the region alive. (reflect refuses Interface on
		// values reached through unexported fields, such as a
		// frame's, hence the unsafe.Pointer.)
		*x = (*E)(v.Addr().UnsafePointer())
	})
}

// DecodeSlice reads what [EncodeSlice] wrote into *x.
func DecodeSlice[E any](d *Decoder, x *[]E, content func(d *Decoder, s []E)) {
	*x = nil
	switch tag := d.Uint(); {
	case d.err != nil || tag == 0:
		return
	case tag == 1:
		*x = []E{}
		return
	case tag == 3:
		n, c := d.Uint(), d.Uint()
		switch {
		case d.err != nil:
		case reflect.TypeFor[E]().Size() != 0 || n > c || c > math.MaxInt:
			d.Fail(fmt.Errorf("a slice of length %d and capacity %d of %v without an array", n, c, reflect.TypeFor[E]()))
		default:
			*x = make([]E, n, c)
		}
		return
	case tag > 3:
		d.Fail(fmt.Errorf("bad slice tag %d", tag))
		return
	}
	r, root := d.mention()
	if d.err != nil {
		return
	}
	if r == nil {
		d.Fail(errors.New("a slice in region 0"))
		return
	}
	if root {
		n := d.Uint()
		if d.err == nil && (n == 0 || n > uint64(len(d.buf))) {
			d.Fail(fmt.Errorf("array of %d elements with %d bytes left", n, len(d.buf)))
		}
		if d.err != nil || !d.charge(sliceCost(int(n), sizeOf[E]())+queueCost) {
			return
		}
		a := make([]E, n)
		d.allocate(r, reflect.ValueOf(a), a)
		d.queue = append(d.queue, queued{dec: func() { content(d, a) }, frame: d.frame})
	}
	path := d.readPath()
	first, n, c := d.Uint(), d.Uint(), d.Uint()
	if d.err != nil || !d.charge(fixCost) {
		return
	}
	if n > c || c == 0 {
		d.Fail(fmt.Errorf("a slice of length %d and capacity %d", n, c))
		return
	}
	if a, ok := r.ptr.([]E); ok && len(path) == 0 {
		if first > uint64(len(a)) || c > uint64(len(a))-first {
			d.Fail(fmt.Errorf("a slice [%d:%d:%d] of %d elements", first, first+n, first+c, len(a)))
			return
		}
		*x = a[first : first+n : first+c]
		return
	}
	d.resolve(r, func(v reflect.Value) {
		v, ok := d.walk(v, path)
		if !ok {
			return
		}
		if v.Type() == reflect.TypeFor[E]() && first == 0 && c == 1 {
			// Safety: v is an addressable E inside a region this
			// decoder allocated: a slice of one element.
			*x = unsafe.Slice((*E)(v.Addr().UnsafePointer()), 1)[:n:1]
			return
		}
		if v.Kind() != reflect.Array || v.Type().Elem() != reflect.TypeFor[E]() {
			d.Fail(fmt.Errorf("a %v where a slice of %v points", v.Type(), reflect.TypeFor[E]()))
			return
		}
		if first > uint64(v.Len()) || c > uint64(v.Len())-first {
			d.Fail(fmt.Errorf("a slice [%d:%d:%d] of %d elements", first, first+n, first+c, v.Len()))
			return
		}
		// Safety: v is an addressable array of E (checked) of at
		// least first+c elements (checked), inside a region this
		// decoder allocated.
		p := (*E)(v.Index(int(first)).Addr().UnsafePointer())
		*x = unsafe.Slice(p, c)[:n:c]
	})
}

// DecodeMap reads what [EncodeMap] wrote into *x. An entry whose key or
// value points into a region not yet allocated is inserted at the end of
// the decoding, once every pointer is set.
func DecodeMap[M ~map[K]V, K comparable, V any](d *Decoder, x *M, entry func(d *Decoder, k *K, v *V)) {
	*x = nil
	r, root := d.mention()
	if d.err != nil || r == nil || !d.charge(fixCost) {
		return
	}
	if !root {
		if m, ok := r.ptr.(M); ok {
			*x = m
			return
		}
		if r.ptr != nil && r.v.Kind() == reflect.Map && r.v.Type().ConvertibleTo(reflect.TypeFor[M]()) {
			*x = r.v.Convert(reflect.TypeFor[M]()).Interface().(M)
			return
		}
		d.WrongType(reflect.TypeFor[M]().String(), r.ptr)
		return
	}
	if !d.charge(queueCost + mapCost(0, 0, 0)) {
		return
	}
	m := make(M)
	d.allocate(r, reflect.ValueOf(m), m)
	*x = m
	d.queue = append(d.queue, queued{frame: d.frame, dec: func() {
		n := d.Uint()
		if d.err == nil && n > uint64(len(d.buf)) {
			d.Fail(fmt.Errorf("%d entries with %d bytes left", n, len(d.buf)))
		}
		if !d.charge(mapEntriesCost[K, V](n)) {
			return
		}
		k, v := new(K), new(V)
		for range n {
			if d.err != nil {
				return
			}
			*k, *v = *new(K), *new(V)
			before := d.nfix
			entry(d, k, v)
			if d.err != nil {
				return
			}
			if d.nfix == before {
				m[*k] = *v
				continue
			}
			kk, vv := k, v
			d.later = append(d.later, func() { m[*kk] = *vv })
			k, v = new(K), new(V)
		}
	}})
}

// finish decodes the queued contents, checks that every region mentioned
// was allocated, and inserts the map entries that waited for pointers.
func (d *Decoder) finish() {
	for i := 0; i < len(d.queue) && d.err == nil; i++ {
		d.frame = d.queue[i].frame
		d.queue[i].dec()
		d.queue[i] = queued{}
	}
	if d.err == nil && d.pending != 0 {
		d.Fail(fmt.Errorf("%d regions referenced but never written", d.pending))
	}
	if d.err != nil {
		return
	}
	for _, f := range d.later {
		f()
	}
}

// mapEntriesCost is the charge of n entries of a map[K]V decoded into a
// map made without a size hint: its groups as it grows (twice those of
// its final size), and each entry's key, value and insertion closure
// when they wait for a pointer.
func mapEntriesCost[K comparable, V any](n uint64) uint64 {
	k, v := sizeOf[K](), sizeOf[V]()
	return 2*mapCost(n, k, v) + mulCap(n, cost(k)+cost(v)+entryCost)
}
