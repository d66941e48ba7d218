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
				if !l.isConst(o) && isAggregate(l.typeOf(o)) && !l.addressable(o) {
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
		// A conversion that gc evaluates late (calls are in place).
		if len(x.Args) == 1 {
			if y := l.early(x.Args[0]); y != x.Args[0] {
				return l.keepType(&ast.CallExpr{Fun: x.Fun, Args: []ast.Expr{y}}, e)
			}
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
	if target == nil || l.isConst(e) || !types.IsInterface(target) {
		return e
	}
	t := l.typeOf(e)
	if t == nil || types.IsInterface(t) || isTypeParam(t) {
		return e
	}
	if ident, ok := e.(*ast.Ident); ok && l.synth[ident] != nil {
		return e
	}
	if convByAddress(t) && !l.addressable(e) {
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
	switch ix, iy := types.IsInterface(tx), types.IsInterface(ty); {
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
// conversions are evaluated late.
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
		if types.IsInterface(to) && !types.IsInterface(from) && !isTypeParam(from) {
			return convByAddress(from) && !l.addressable(call.Args[0]) && !l.isConst(call.Args[0])
		}
		return false
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
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

// mapKey orders the key of a map lookup: a map with a key type the runtime
// takes by address (not 4 or 8 bytes of plain memory, not a string) gets
// a key that is not addressable copied at its place.
func (l *lowerer) mapKey(m *types.Map, k ast.Expr) ast.Expr {
	if l.isConst(k) || !slowMap(m) || l.addressable(k) {
		return k
	}
	if id, ok := k.(*ast.Ident); ok && l.synth[id] != nil {
		return k
	}
	return l.spill(k, l.typeOf(k))
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

// slowMap reports whether gc's runtime takes the keys of m by address:
// keys other than strings and 4 or 8 bytes of plain memory, or elements
// larger than 128 bytes (gc's mapfast).
func slowMap(m *types.Map) bool {
	if gcSizes.Sizeof(m.Elem()) > 128 {
		return true
	}
	k := m.Key()
	if b, ok := coreType(k).(*types.Basic); ok && b.Info()&types.IsString != 0 {
		return false
	}
	size := gcSizes.Sizeof(k)
	return !((size == 4 || size == 8) && plainMemory(k))
}

// plainMemory reports whether values of t compare as their bytes: no
// floats, strings or interfaces, and no padding.
func plainMemory(t types.Type) bool {
	switch u := coreType(t).(type) {
	case *types.Basic:
		return u.Info()&(types.IsFloat|types.IsComplex|types.IsString) == 0
	case *types.Pointer, *types.Chan:
		return true
	case *types.Array:
		return plainMemory(u.Elem())
	case *types.Struct:
		var sum int64
		for f := range u.Fields() {
			if !plainMemory(f.Type()) || f.Name() == "_" {
				return false
			}
			sum += gcSizes.Sizeof(f.Type())
		}
		return sum == gcSizes.Sizeof(t)
	}
	return false
}
