package gen

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Evaluation order. The generated code evaluates every operand in the
// order the gc compiler does for the same source (its order pass,
// cmd/compile/internal/walk/order.go, is the reference; where the spec
// leaves the order open, gc's choice is what users observe). gc evaluates
// a statement in two sweeps: first, left to right, the nodes it evaluates
// "in place" (each into a temporary: calls, receives, most builtins, ...),
// then the rest of the expression, which reads variables, fields, elements
// and pointers after every call of the statement. A suspension point is a
// call, so it is hoisted into an earlier state with every in-place node to
// its left evaluated before it (early), and the rest stays in the
// expression, evaluated after it, exactly as gc would. The rule per kind
// of expression is in the package doc.

// early evaluates now, into temporaries, the parts of e that gc evaluates
// at their place in the statement, and returns e with those parts
// replaced. e has no suspension point left (it is lowered already).
func (l *lowerer) early(e ast.Expr) ast.Expr {
	if e == nil || l.isConst(e) {
		return e
	}
	if l.inPlace(e) {
		return l.spill(e, l.typeOf(e))
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		if y := l.early(x.X); y != x.X {
			return l.keepType(&ast.ParenExpr{X: y}, e)
		}
	case *ast.BinaryExpr:
		targets := l.comparedAs(x)
		ops := []ast.Expr{l.earlyTo(x.X, targets[0]), l.earlyTo(x.Y, targets[1])}
		if x.Op == token.EQL || x.Op == token.NEQ {
			// Structs and arrays are compared by the runtime, through
			// the addresses of their operands: an operand that is not
			// addressable is evaluated into a temporary at its place.
			for i, o := range ops {
				if l.isConst(o) || l.addressable(o) {
					continue
				}
				if l.perShape(o, "compared with == or !=", []types.Type{l.typeOf(o)}, func(s []types.Type) bool { return isAggregate(s[0]) }) {
					ops[i] = l.spill(o, l.typeOf(o))
				}
			}
		}
		if ops[0] != x.X || ops[1] != x.Y {
			return l.keepType(&ast.BinaryExpr{X: ops[0], OpPos: x.OpPos, Op: x.Op, Y: ops[1]}, e)
		}
	case *ast.UnaryExpr:
		if y := l.early(x.X); y != x.X {
			return l.keepType(&ast.UnaryExpr{OpPos: x.OpPos, Op: x.Op, X: y}, e)
		}
	case *ast.StarExpr:
		if y := l.early(x.X); y != x.X {
			return l.keepType(&ast.StarExpr{X: y}, e)
		}
	case *ast.SelectorExpr:
		if l.info.Selections[x] == nil {
			return e // a qualified identifier
		}
		if y := l.early(x.X); y != x.X {
			return l.selector(y, x)
		}
	case *ast.IndexExpr:
		if l.isInstance(x) {
			return e
		}
		base, idx := l.early(x.X), l.early(x.Index)
		if m, ok := coreType(l.typeOf(x.X)).(*types.Map); ok {
			idx = l.mapKey(m, idx)
		}
		if base != x.X || idx != x.Index {
			return l.keepType(&ast.IndexExpr{X: base, Index: idx}, e)
		}
	case *ast.TypeAssertExpr:
		if y := l.early(x.X); y != x.X {
			return l.keepType(&ast.TypeAssertExpr{X: y, Type: x.Type}, e)
		}
	case *ast.CallExpr:
		// A conversion or an unsafe builtin (unsafe.Add, unsafe.Slice,
		// unsafe.String, unsafe.SliceData, unsafe.StringData) that gc
		// evaluates late: its operands are ordered like any other.
		args := make([]ast.Expr, len(x.Args))
		changed := false
		for i, a := range x.Args {
			args[i] = l.early(a)
			changed = changed || args[i] != a
		}
		if changed {
			return l.keepType(&ast.CallExpr{Fun: x.Fun, Lparen: x.Lparen, Args: args, Ellipsis: x.Ellipsis, Rparen: x.Rparen}, e)
		}
	case *ast.CompositeLit:
		return l.earlyLit(x)
	}
	return e
}

// earlyTo is early for an operand assigned to a variable of type target
// (a parameter, an element, a result): converting a concrete value to an
// interface takes the value's address in gc, so an operand that is not
// addressable and not of a type passed by value is evaluated at its place.
func (l *lowerer) earlyTo(e ast.Expr, target types.Type) ast.Expr {
	e = l.early(e)
	if target == nil || l.isConst(e) || !isIface(target) {
		return e
	}
	t := l.typeOf(e)
	if t == nil || isIface(t) {
		return e
	}
	if ident, ok := e.(*ast.Ident); ok && l.synth[ident] != nil {
		return e
	}
	if !l.addressable(e) && l.perShape(e, "converted to an interface", []types.Type{t}, func(s []types.Type) bool { return convByAddress(s[0]) }) {
		return l.spill(e, t)
	}
	return e
}

// comparedAs returns, for a comparison of an interface with a concrete
// value, the interface type the concrete operand is converted to (gc
// converts it like an assignment); nil entries otherwise.
func (l *lowerer) comparedAs(x *ast.BinaryExpr) []types.Type {
	out := make([]types.Type, 2)
	if x.Op != token.EQL && x.Op != token.NEQ {
		return out
	}
	tx, ty := l.typeOf(x.X), l.typeOf(x.Y)
	if tx == nil || ty == nil || l.isConst(x.X) || l.isConst(x.Y) {
		return out
	}
	switch ix, iy := isIface(tx), isIface(ty); {
	case ix && !iy:
		out[1] = tx
	case iy && !ix:
		out[0] = ty
	}
	return out
}

// earlyLit orders the elements of a composite literal: gc builds the
// literal late, reading its elements then, except the in-place parts of
// each element (and a map literal with non-constant entries, which is
// built in place, see inPlace).
func (l *lowerer) earlyLit(x *ast.CompositeLit) ast.Expr {
	var elts []ast.Expr
	changed := false
	for i, el := range x.Elts {
		var y ast.Expr
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			key := kv.Key
			if !l.isFieldKey(x, kv) {
				key = l.earlyTo(kv.Key, l.litKeyType(x))
			}
			val := l.earlyTo(kv.Value, l.litElemType(x, kv.Key, i))
			y = el
			if key != kv.Key || val != kv.Value {
				y = &ast.KeyValueExpr{Key: key, Colon: kv.Colon, Value: val}
			}
		} else {
			y = l.earlyTo(el, l.litElemType(x, nil, i))
		}
		changed = changed || y != el
		elts = append(elts, y)
	}
	if !changed {
		return x
	}
	return l.newLit(x, elts)
}

// newLit rebuilds a composite literal with new elements. An elided type
// stays elided; it is recorded, so that the literal can be evaluated into
// a temporary of its own (the renderer then writes the type).
func (l *lowerer) newLit(x *ast.CompositeLit, elts []ast.Expr) ast.Expr {
	n := &ast.CompositeLit{Type: x.Type, Elts: elts}
	return l.keepType(n, x)
}

// inPlace reports whether gc evaluates e at its place in the statement
// (into a temporary), before the operands to its right are evaluated.
func (l *lowerer) inPlace(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.CallExpr:
		return l.callInPlace(x)
	case *ast.UnaryExpr:
		return x.Op == token.ARROW
	case *ast.BinaryExpr:
		return x.Op == token.LAND || x.Op == token.LOR
	case *ast.SliceExpr:
		return true
	case *ast.TypeAssertExpr:
		if mentionsTypeParam(l.typeOf(e)) {
			return false // gc's dynamic assertion (ODYNAMICDOTTYPE) is late
		}
		return !directIface(l.typeOf(e))
	case *ast.IndexExpr:
		if _, ok := coreType(l.typeOf(x.X)).(*types.Map); ok {
			// The lookup of a key converted from bytes (string(b), or a
			// literal holding one) is done at once, before the bytes
			// can change.
			return l.bytesKey(x.Index)
		}
	case *ast.CompositeLit:
		if _, ok := l.litType(x).(*types.Map); ok {
			// gc builds a map literal with non-constant entries
			// in a temporary, at its place.
			for _, el := range x.Elts {
				kv := el.(*ast.KeyValueExpr)
				if !l.constLit(kv.Key) || !l.constLit(kv.Value) {
					return true
				}
			}
		}
	}
	return false
}

// callInPlace reports whether gc evaluates a call or conversion at its
// place: function, method and closure calls, the builtins len, cap, min,
// max, new, make, append, copy, complex, real, imag and recover, and the
// conversions of a string to []byte or []rune; a conversion to an
// interface when its operand must be copied (see earlyTo). Other
// conversions and the unsafe builtins are evaluated late.
func (l *lowerer) callInPlace(call *ast.CallExpr) bool {
	if tv, ok := l.info.Types[call.Fun]; ok && tv.IsType() {
		if len(call.Args) != 1 {
			return false
		}
		to, from := l.typeOf(call), l.typeOf(call.Args[0])
		if to == nil || from == nil {
			return false
		}
		if s, ok := coreType(to).(*types.Slice); ok && isStringType(from) {
			if b, ok := types.Unalias(s.Elem()).Underlying().(*types.Basic); ok && (b.Kind() == types.Byte || b.Kind() == types.Rune) {
				return true
			}
		}
		if isIface(to) && !isIface(from) {
			if l.addressable(call.Args[0]) || l.isConst(call.Args[0]) {
				return false
			}
			return l.perShape(call.Args[0], "converted to an interface", []types.Type{from}, func(s []types.Type) bool { return convByAddress(s[0]) })
		}
		return false
	}
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel // unsafe.Add and the others are late
	}
	if id != nil {
		if b, ok := l.info.Uses[id].(*types.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "min", "max", "new", "make", "append", "copy", "complex", "real", "imag", "recover":
				return true
			}
			return false
		}
	}
	return true
}

// bytesKey reports whether a map key is a conversion of bytes to a string,
// or a struct or array literal holding one (gc's mapKeyReplaceStrConv).
func (l *lowerer) bytesKey(k ast.Expr) bool {
	switch x := ast.Unparen(k).(type) {
	case *ast.CallExpr:
		if tv, ok := l.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 && isStringType(l.typeOf(x)) {
			if s, ok := coreType(l.typeOf(x.Args[0])).(*types.Slice); ok {
				b, ok := types.Unalias(s.Elem()).Underlying().(*types.Basic)
				return ok && b.Kind() == types.Byte
			}
		}
	case *ast.CompositeLit:
		switch coreType(l.typeOf(x)).(type) {
		case *types.Struct, *types.Array:
			for _, el := range x.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				if l.bytesKey(el) {
					return true
				}
			}
		}
	}
	return false
}

// mapKey orders the key of a map lookup as gc's mapKeyTemp does. A map
// the runtime takes the keys of by address (slowMap) gets a key that is not
// addressable copied at its place. A fast map (keys of 4 or 8 bytes of
// plain memory, or strings) takes its key by value: an integer, a
// pointer-shaped or a string key is converted and read late, any other (a
// struct or an array) is copied at its place, even a variable.
func (l *lowerer) mapKey(m *types.Map, k ast.Expr) ast.Expr {
	if l.isConst(k) {
		return k
	}
	if id, ok := k.(*ast.Ident); ok && l.synth[id] != nil {
		return k
	}
	addr := l.addressable(k)
	if l.perShape(k, "used as a map key", []types.Type{m.Key(), m.Elem()}, func(s []types.Type) bool { return keyCopied(types.NewMap(s[0], s[1]), addr) }) {
		return l.spill(k, l.typeOf(k))
	}
	return k
}

// keyCopied reports whether gc copies a key of map m at its place (see
// mapKey); addressable tells whether the key expression is.
func keyCopied(m *types.Map, addressable bool) bool {
	if slowMap(m) {
		return !addressable
	}
	switch coreType(m.Key()).(type) {
	case *types.Basic, *types.Pointer, *types.Chan:
		return false // an integer, a string, a pointer
	}
	return true
}

// addressable reports whether gc can take e's address (ir.IsAddressable).
func (l *lowerer) addressable(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return l.addressable(x.X)
	case *ast.Ident:
		if l.synth[x] != nil {
			return true
		}
		_, ok := l.info.Uses[x].(*types.Var)
		return ok
	case *ast.StarExpr:
		return true
	case *ast.SelectorExpr:
		sel := l.info.Selections[x]
		if sel == nil {
			_, ok := l.info.Uses[x.Sel].(*types.Var)
			return ok
		}
		if sel.Kind() != types.FieldVal {
			return false
		}
		if _, ptr := coreType(l.typeOf(x.X)).(*types.Pointer); ptr || sel.Indirect() {
			return true
		}
		return l.addressable(x.X)
	case *ast.IndexExpr:
		switch t := coreType(l.typeOf(x.X)).(type) {
		case *types.Slice:
			return true
		case *types.Pointer:
			return true // a pointer to an array
		case *types.Array:
			_ = t
			return l.addressable(x.X)
		}
	}
	return false
}

// selector rebuilds x with a new operand, keeping what go/types knows of it.
func (l *lowerer) selector(operand ast.Expr, x *ast.SelectorExpr) ast.Expr {
	n := &ast.SelectorExpr{X: operand, Sel: x.Sel}
	if sel := l.info.Selections[x]; sel != nil {
		l.info.Selections[n] = sel
	}
	return l.keepType(n, x)
}

func (l *lowerer) isConst(e ast.Expr) bool {
	if e == nil {
		return true
	}
	if _, ok := e.(*ast.BasicLit); ok {
		return true
	}
	tv, ok := l.info.Types[e]
	return ok && (tv.Value != nil || tv.IsNil() || tv.IsType())
}

// constLit reports whether e is a constant or a literal of constants
// (gc's static composite literal).
func (l *lowerer) constLit(e ast.Expr) bool {
	if l.isConst(e) {
		return true
	}
	if cl, ok := e.(*ast.CompositeLit); ok {
		if _, isMap := coreType(l.typeOf(e)).(*types.Map); isMap {
			return false
		}
		for _, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			if !l.constLit(el) {
				return false
			}
		}
		return true
	}
	return false
}

// isInstance reports whether x instantiates a generic function or type.
func (l *lowerer) isInstance(x *ast.IndexExpr) bool {
	if tv, ok := l.info.Types[x]; ok && tv.IsType() {
		return true
	}
	if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
		if _, ok := l.info.Instances[id]; ok {
			return true
		}
	}
	if sel, ok := ast.Unparen(x.X).(*ast.SelectorExpr); ok {
		if _, ok := l.info.Instances[sel.Sel]; ok {
			return true
		}
	}
	return false
}

// isFieldKey reports whether kv's key names a struct field.
func (l *lowerer) isFieldKey(lit *ast.CompositeLit, kv *ast.KeyValueExpr) bool {
	t := coreType(l.typeOf(lit))
	if p, ok := t.(*types.Pointer); ok {
		t = coreType(p.Elem())
	}
	_, ok := t.(*types.Struct)
	return ok
}

// litKeyType is the key type of a map literal (nil for other literals).
func (l *lowerer) litKeyType(lit *ast.CompositeLit) types.Type {
	if m, ok := l.litType(lit).(*types.Map); ok {
		return m.Key()
	}
	return nil
}

// litElemType is the type of the i-th element (with its key, if any) of a
// composite literal.
func (l *lowerer) litElemType(lit *ast.CompositeLit, key ast.Expr, i int) types.Type {
	switch t := l.litType(lit).(type) {
	case *types.Map:
		return t.Elem()
	case *types.Slice:
		return t.Elem()
	case *types.Array:
		return t.Elem()
	case *types.Struct:
		if id, ok := key.(*ast.Ident); ok {
			for f := range t.Fields() {
				if f.Name() == id.Name {
					return f.Type()
				}
			}
			return nil
		}
		if i < t.NumFields() {
			return t.Field(i).Type()
		}
	}
	return nil
}

func (l *lowerer) litType(lit *ast.CompositeLit) types.Type {
	t := coreType(l.typeOf(lit))
	if p, ok := t.(*types.Pointer); ok {
		t = coreType(p.Elem())
	}
	return t
}

func isStringType(t types.Type) bool {
	b, ok := coreType(t).(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

func isAggregate(t types.Type) bool {
	switch coreType(t).(type) {
	case *types.Struct, *types.Array:
		return true
	}
	return false
}

// gcSizes are the sizes gc uses on 64-bit targets, on which the order of
// interface conversions and map keys below is decided.
var gcSizes = types.SizesFor("gc", "amd64")

// directIface reports whether values of t are stored in an interface
// directly (pointer-shaped), so that a type assertion to t is evaluated
// late; other assertions are evaluated in place.
func directIface(t types.Type) bool {
	switch u := coreType(t).(type) {
	case *types.Pointer, *types.Chan, *types.Map, *types.Signature:
		return true
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	case *types.Struct:
		return u.NumFields() == 1 && directIface(u.Field(0).Type())
	case *types.Array:
		return u.Len() == 1 && directIface(u.Elem())
	}
	return false
}

// convByAddress reports whether gc converts a value of t to an interface
// through its address (gc's dataWordFuncName: everything but 2, 4 and 8
// bytes without pointers and single strings and slices).
func convByAddress(t types.Type) bool {
	size, align := gcSizes.Sizeof(t), gcSizes.Alignof(t)
	switch {
	case size == 2 && align == 2,
		size == 4 && align == 4 && !hasPointers(t),
		size == 8 && align == 8 && !hasPointers(t):
		return false
	}
	switch coreType(soleComponent(t)).(type) {
	case *types.Slice:
		return false
	case *types.Basic:
		if isStringType(soleComponent(t)) {
			return false
		}
	}
	return true
}

// soleComponent is the only component of t, through structs of one field
// and arrays of one element (t itself otherwise).
func soleComponent(t types.Type) types.Type {
	for {
		switch u := coreType(t).(type) {
		case *types.Struct:
			if u.NumFields() != 1 {
				return t
			}
			t = u.Field(0).Type()
		case *types.Array:
			if u.Len() != 1 {
				return t
			}
			t = u.Elem()
		default:
			return t
		}
	}
}

func hasPointers(t types.Type) bool {
	switch u := coreType(t).(type) {
	case *types.Basic:
		return u.Info()&types.IsString != 0 || u.Kind() == types.UnsafePointer
	case *types.Struct:
		for f := range u.Fields() {
			if hasPointers(f.Type()) {
				return true
			}
		}
		return false
	case *types.Array:
		return u.Len() > 0 && hasPointers(u.Elem())
	}
	return true
}

// slowMap reports whether gc's runtime takes the keys of m by address
// (gc's mapfast): elements larger than 128 bytes, or keys whose equality is
// neither 4 or 8 bytes of memory nor a string's.
func slowMap(m *types.Map) bool {
	if gcSizes.Sizeof(m.Elem()) > 128 {
		return true
	}
	switch alg(m.Key()) {
	case algString:
		return false
	case algMem:
		size := gcSizes.Sizeof(m.Key())
		return size != 4 && size != 8
	}
	return true
}

// The equality algorithms of gc (cmd/compile/internal/types.AlgKind) that
// decide a map's fast path.
const (
	algMem    = iota // the bytes of the value
	algString        // a string
	algOther         // floats, interfaces, padded or blank fields, ...
)

// alg is the equality algorithm gc gives a comparable type: a struct of
// one (non-blank) field and an array of one element compare as that field
// or element.
func alg(t types.Type) int {
	switch u := coreType(t).(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return algString
		case u.Info()&(types.IsFloat|types.IsComplex) != 0:
			return algOther
		}
		return algMem
	case *types.Pointer, *types.Chan:
		return algMem
	case *types.Array:
		a := alg(u.Elem())
		switch {
		case a == algMem || u.Len() == 0:
			return algMem
		case u.Len() == 1:
			return a
		}
		return algOther
	case *types.Struct:
		if u.NumFields() == 1 && u.Field(0).Name() != "_" {
			return alg(u.Field(0).Type())
		}
		fields := make([]*types.Var, u.NumFields())
		for i := range fields {
			fields[i] = u.Field(i)
		}
		offsets := gcSizes.Offsetsof(fields)
		for i, f := range fields {
			if alg(f.Type()) != algMem || f.Name() == "_" {
				return algOther
			}
			end := gcSizes.Sizeof(t)
			if i+1 < len(fields) {
				end = offsets[i+1]
			}
			if offsets[i]+gcSizes.Sizeof(f.Type()) != end {
				return algOther // padding after the field
			}
		}
		return algMem
	}
	return algOther
}

// Generic code. gc compiles a generic function once per GC shape of its
// type arguments (their underlying types, every pointer alike), and takes
// the decisions above that depend on a type (its size, its equality, its
// being pointer-shaped) per shape. perShape takes decide on every shape
// the types can have: where they all agree (the types mention no type
// parameter, or each parameter's constraint lists types that agree), that
// is gc's decision for every instance. Where they do not, or a constraint
// does not list its types (any, comparable, methods only), the order of e
// depends on the instance: it is kept late if nothing can observe it (e
// is a constant or a local variable whose address is never taken and that
// no function literal captures), and refused otherwise.
func (l *lowerer) perShape(e ast.Expr, what string, ts []types.Type, decide func([]types.Type) bool) bool {
	combos := [][]types.Type{nil}
	for _, t := range ts {
		shapes := shapesOf(t)
		if shapes == nil {
			combos = nil
			break
		}
		var next [][]types.Type
		for _, c := range combos {
			for _, sh := range shapes {
				next = append(next, append(append([]types.Type{}, c...), sh))
			}
		}
		combos = next
	}
	if len(combos) > 0 {
		first := decide(combos[0])
		agree := true
		for _, c := range combos[1:] {
			agree = agree && decide(c) == first
		}
		if agree {
			return first
		}
	}
	if !l.unobservable(e) {
		l.errorf(e.Pos(), "the order gc evaluates this operand in (%s, left of a suspension point) depends on the type arguments' shapes, which cogen cannot follow (v1): evaluate it into a variable before the statement, or constrain the type parameter to types of one shape", what)
	}
	return false
}

// unobservable reports whether nothing in a statement can change what e
// reads or make its evaluation fail, so that gc's order for it does not
// show: a constant, or a local variable of the function whose address is
// never taken and that no function literal captures.
func (l *lowerer) unobservable(e ast.Expr) bool {
	if l.isConst(e) {
		return true
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	if l.synth[id] != nil {
		return true
	}
	v, ok := l.info.Uses[id].(*types.Var)
	decl := l.fn.Decl
	return ok && !v.IsField() && v.Pos() >= decl.Pos() && v.Pos() < decl.End() && !l.addrTaken[v]
}

// shapesOf returns the underlying types gc may compile code of type t
// for: t itself if it mentions no type parameter, the types a type
// parameter's constraint lists, nil if they are not known.
func shapesOf(t types.Type) []types.Type {
	if !shapeDepends(t) {
		return []types.Type{t}
	}
	tp, ok := types.Unalias(t).(*types.TypeParam)
	if !ok {
		return nil
	}
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	for i := range iface.NumEmbeddeds() {
		var out []types.Type
		switch e := types.Unalias(iface.EmbeddedType(i)).(type) {
		case *types.Union:
			for term := range e.Terms() {
				u := term.Type().Underlying()
				if _, isIface := u.(*types.Interface); isIface || shapeDepends(u) {
					out = nil
					break
				}
				out = append(out, u)
			}
		case *types.Interface, *types.TypeParam:
		default:
			if u := e.Underlying(); !shapeDepends(u) {
				out = []types.Type{u}
			}
		}
		if out != nil {
			return out
		}
	}
	return nil
}

// shapeDepends reports whether the shape of t depends on a type parameter
// (a pointer, a slice, a map, a channel, a function or an interface has
// one shape whatever its element types).
func shapeDepends(t types.Type) bool {
	switch u := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Named:
		return shapeDepends(u.Underlying())
	case *types.Array:
		return shapeDepends(u.Elem())
	case *types.Struct:
		for f := range u.Fields() {
			if shapeDepends(f.Type()) {
				return true
			}
		}
	}
	return false
}

// isIface reports whether t is an interface type (not a type parameter,
// whose underlying type is its constraint).
func isIface(t types.Type) bool { return types.IsInterface(t) && !isTypeParam(t) }

// mentionsTypeParam reports whether t is built from a type parameter: gc
// then reads it from the function's dictionary (a "derived" type).
func mentionsTypeParam(t types.Type) bool {
	switch u := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Named:
		for a := range u.TypeArgs().Types() {
			if mentionsTypeParam(a) {
				return true
			}
		}
	case *types.Pointer:
		return mentionsTypeParam(u.Elem())
	case *types.Slice:
		return mentionsTypeParam(u.Elem())
	case *types.Array:
		return mentionsTypeParam(u.Elem())
	case *types.Chan:
		return mentionsTypeParam(u.Elem())
	case *types.Map:
		return mentionsTypeParam(u.Key()) || mentionsTypeParam(u.Elem())
	case *types.Struct:
		for f := range u.Fields() {
			if mentionsTypeParam(f.Type()) {
				return true
			}
		}
	case *types.Signature:
		for v := range u.Params().Variables() {
			if mentionsTypeParam(v.Type()) {
				return true
			}
		}
		for v := range u.Results().Variables() {
			if mentionsTypeParam(v.Type()) {
				return true
			}
		}
	}
	return false
}
