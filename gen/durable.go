package gen

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
	"golang.org/x/tools/go/analysis"
)

// Durable functions (//co:stackless durable). Their frames get, beside
// Step, what runtime/stackless needs to snapshot and restore them:
//
//	Durable() (name string, fingerprint uint64)
//	EncodeState(*cogenrt.Encoder) / DecodeState(*cogenrt.Decoder)
//	an init function calling cogenrt.RegisterDurable
//
// plus one pair of helper methods per encoded type that is not a basic
// one (cogenEncN / cogenDecN, N counting from 1 within the frame). A type
// that a registered codec serves (codecs.go) is encoded by a helper pair
// that calls cogenrt.EncodeWith and DecodeWith with the codec's functions.
//
// checkDurable runs after lowering: it receives a function whose plan is
// known and guarantees that every frame field has a type the encoder
// handles, or reports each one that has not, at the variable's position,
// naming it and its type. The emitter then never meets an unencodable
// type.

// checkDurable reports what keeps f's frame from being carried in bytes.
func checkDurable(pass *analysis.Pass, f *Func) bool {
	ok := true
	report := func(pos token.Pos, format string, args ...any) {
		if !pos.IsValid() {
			pos = f.Decl.Name.Pos()
		}
		pass.Reportf(pos, "durable function %s: "+format, append([]any{f.Decl.Name.Name}, args...)...)
		ok = false
	}
	sig := f.Obj.Type().(*types.Signature)
	if sig.TypeParams() != nil || sig.RecvTypeParams() != nil {
		report(f.Decl.Name.Pos(), "a generic function cannot be durable (its frame types are not known at init)")
		return false
	}
	p := f.plan
	if p.hasDefer {
		pos := token.NoPos
		ast.Inspect(f.Decl.Body, func(n ast.Node) bool {
			if d, isDefer := n.(*ast.DeferStmt); isDefer && !pos.IsValid() {
				pos = d.Pos()
			}
			return !pos.IsValid()
		})
		report(pos, "a defer statement: pending deferred calls cannot be carried in a snapshot")
	}
	if len(p.stops) > 0 {
		report(f.Decl.Name.Pos(), "a range-over-func loop suspends: its iterator cannot be carried in a snapshot")
	}
	if f.lits != nil && len(f.lits.list) > 0 {
		report(f.lits.list[0].lit.node.Pos(), "a function literal suspends: its frame and captures cannot be carried in a snapshot")
	}
	// A wait on a cosync object (a protocol call) cannot be carried, and
	// the temporaries holding its operands are not the user's to fix:
	// the call is reported, and they are not.
	protoWait := false
	for _, b := range p.blocks {
		if !b.suspend || len(b.nodes) == 0 {
			continue
		}
		if sn, isSusp := b.nodes[0].(*suspendNode); isSusp && !sn.handle && sn.orig != nil {
			report(sn.pos, "%s waits on a cosync object (a protocol call), which a snapshot cannot carry: what it waits for lives outside the task's frames (wait with Gosched, Yield or Sleep, or make the function not durable)", shortExpr(sn.orig))
			protoWait = true
		}
	}
	callPos := map[*variable]token.Pos{}
	for _, b := range p.blocks {
		if ct, isCall := b.term.(*callTerm); isCall {
			if _, seen := callPos[ct.child]; !seen {
				callPos[ct.child] = ct.pos
			}
		}
	}
	var fieldTypes []types.Type
	defer func() {
		if ok {
			f.versionKeys = versionKeys(pass, f, fieldTypes)
		}
	}()
	for _, v := range p.fieldVars() {
		if v.kind != kChild {
			fieldTypes = append(fieldTypes, v.typ)
		}
		if (v.kind == kParam && v.obj == nil) || slices.Contains(p.stops, v) {
			continue // unnamed; a range-over-func iterator, reported above
		}
		if protoWait && v.kind == kTemp {
			continue // an operand of a protocol call, reported above
		}
		what := "a value the function holds across a suspension" // a temporary: never its name
		switch {
		case v.obj != nil:
			what = v.obj.Name()
		case v.desc != "":
			what = v.desc
		case v.kind == kResult:
			what = "a result"
		}
		if v.kind == kChild {
			if v.child.fn.lit == nil && !v.child.fn.Durable {
				report(callPos[v], "it calls %s, which is not durable (mark it //co:stackless durable)", v.child.fn.Obj.Name())
			}
			continue
		}
		t := v.typ
		if v.boxed {
			t = types.NewPointer(t)
		}
		if why := unencodable(pass.Pkg, f.codecs, t, map[types.Type]bool{}); why != "" {
			report(v.pos, "%s (%s) lives in the frame, and %s", what, types.TypeString(v.typ, types.RelativeTo(pass.Pkg)), why)
		}
	}
	return ok
}

// unencodable returns why values of type t cannot be encoded, or "".
func unencodable(pkg *types.Package, cv codecView, t types.Type, seen map[types.Type]bool) string {
	t = types.Unalias(t)
	if n, ok := t.(*types.Named); ok {
		obj := n.Obj()
		if obj.Pkg() != nil && obj.Parent() != obj.Pkg().Scope() {
			return fmt.Sprintf("%s is declared inside a function, where the encoder cannot name it", obj.Name())
		}
		if obj.Pkg() != nil && obj.Pkg() != pkg && !obj.Exported() {
			return fmt.Sprintf("%s.%s is not exported, and the encoder cannot name it", obj.Pkg().Name(), obj.Name())
		}
	}
	if why := cv.ambiguity(t); why != "" {
		return why
	}
	if seen[t] || cv.codec(t) != nil || isBinaryCodec(t) {
		return ""
	}
	seen[t] = true
	if n, ok := t.(*types.Named); ok && (n.TypeParams() != nil || n.TypeArgs() != nil) {
		return fmt.Sprintf("the generic type %s cannot be encoded field by field (%s)", n.Obj().Name(), codecHint(pkg, t))
	}
	name := types.TypeString(t, types.RelativeTo(pkg))
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Kind() == types.UnsafePointer:
			return "an unsafe.Pointer cannot be encoded"
		case u.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsComplex|types.IsString) != 0:
			return ""
		}
		return fmt.Sprintf("%s cannot be encoded", name)
	case *types.Slice:
		return unencodable(pkg, cv, u.Elem(), seen)
	case *types.Array:
		return unencodable(pkg, cv, u.Elem(), seen)
	case *types.Pointer:
		return unencodable(pkg, cv, u.Elem(), seen)
	case *types.Map:
		if why := unencodable(pkg, cv, u.Key(), seen); why != "" {
			return why
		}
		return unencodable(pkg, cv, u.Elem(), seen)
	case *types.Struct:
		for i := range u.NumFields() {
			fld := u.Field(i)
			if fld.Name() == "_" {
				continue
			}
			if !fld.Exported() && fld.Pkg() != pkg {
				return fmt.Sprintf("%s has unexported fields of another package (field %s) and does not implement encoding.BinaryMarshaler and BinaryUnmarshaler: %s", name, fld.Name(), codecHint(pkg, t))
			}
			if why := unencodable(pkg, cv, fld.Type(), seen); why != "" {
				return why
			}
		}
		return ""
	case *types.Chan:
		return fmt.Sprintf("a channel (%s) cannot be carried in a snapshot", name)
	case *types.Signature:
		return fmt.Sprintf("a func (%s) cannot be carried in a snapshot (unless a codec carries it: %s)", name, codecHint(pkg, t))
	case *types.Interface:
		return fmt.Sprintf("an interface (%s) cannot be encoded: its dynamic type is not known (%s)", name, codecHint(pkg, t))
	}
	return fmt.Sprintf("%s cannot be encoded", name)
}

var binaryMarshaler, binaryUnmarshaler = func() (*types.Interface, *types.Interface) {
	bs := types.NewSlice(types.Typ[types.Byte])
	errType := types.Universe.Lookup("error").Type()
	m := types.NewInterfaceType([]*types.Func{types.NewFunc(token.NoPos, nil, "MarshalBinary",
		types.NewSignatureType(nil, nil, nil, nil, types.NewTuple(types.NewParam(token.NoPos, nil, "", bs), types.NewParam(token.NoPos, nil, "", errType)), false))}, nil)
	u := types.NewInterfaceType([]*types.Func{types.NewFunc(token.NoPos, nil, "UnmarshalBinary",
		types.NewSignatureType(nil, nil, nil, types.NewTuple(types.NewParam(token.NoPos, nil, "", bs)), types.NewTuple(types.NewParam(token.NoPos, nil, "", errType)), false))}, nil)
	return m.Complete(), u.Complete()
}()

// isTime reports whether t is time.Time, which stackless's Encoder.Time
// writes with its location (MarshalBinary keeps only the offset).
func isTime(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Time"
}

// isBinaryCodec reports whether a *t marshals and unmarshals itself.
func isBinaryCodec(t types.Type) bool {
	if _, isPtr := t.Underlying().(*types.Pointer); isPtr {
		return false
	}
	if _, isIface := t.Underlying().(*types.Interface); isIface {
		return false
	}
	p := types.NewPointer(t)
	return types.Implements(p, binaryMarshaler) && types.Implements(p, binaryUnmarshaler)
}

// durableCodec writes the encoding of one frame.
type durableCodec struct {
	e       *emitter
	fn      *Func
	frame   string
	helpers []types.Type // by helper number - 1
	codecs  codecView
	// locals maps the names of the generated methods' parameters and
	// locals to names that neither a package-level name nor an import
	// of the generated file can be captured by.
	locals map[string]string
}

// id names the local base of a generated method.
func (c *durableCodec) id(base string) *jen.Statement {
	name, ok := c.locals[base]
	if !ok {
		taken := func(s string) bool {
			return c.e.pkgNames[s] || c.e.importNames[s] || s == c.fn.plan.recv || slices.Contains(slices.Collect(maps.Values(c.locals)), s)
		}
		name = base
		for i := 1; taken(name); i++ {
			name = fmt.Sprintf("%s%d", base, i)
		}
		c.locals[base] = name
		c.e.durableLocals[name] = true
	}
	return jen.Id(name)
}

// durable emits the durable methods, helpers and registration of fn's
// frame; step is its Step body, which the fingerprint hashes.
func (e *emitter) durable(fn *Func, name string, step []jen.Code) {
	p := fn.plan
	c := &durableCodec{e: e, fn: fn, frame: fn.FrameName, locals: map[string]string{}, codecs: fn.codecs}
	regName := e.pkg.Path() + "." + name
	fields := durableFields(p)
	fp := c.fingerprint(step, fields)
	fr := func() *jen.Statement { return jen.Id(p.recv).Op("*").Id(fn.FrameName) }
	sl := func(sel string) *jen.Statement { return e.gq(cogenrtPath, sel) }

	e.file.Commentf("Durable returns the registered name and the layout fingerprint of %s's frame (cogenrt.DurableFrame).", name)
	e.file.Func().Params(fr()).Id("Durable").Params().Params(jen.String(), jen.Uint64()).Block(
		jen.Return(jen.Lit(regName), jen.Lit(fp)))

	var encBody, decBody []jen.Code
	for _, v := range fields {
		lv := func() *jen.Statement { return jen.Id(p.recv).Dot(v.name) }
		if v.kind == kChild {
			encBody = append(encBody, c.id("enc").Dot("Callee").Call(lv()))
			ft := e.fieldType(v)
			decBody = append(decBody, jen.If(c.id("c").Op(":=").Add(c.id("dec")).Dot("Callee").Call(), c.id("c").Op("!=").Nil()).Block(
				jen.List(c.id("x"), c.id("ok")).Op(":=").Add(c.id("c")).Assert(ft),
				jen.If(jen.Op("!").Add(c.id("ok"))).Block(c.id("dec").Dot("WrongType").Call(jen.Lit(fmt.Sprintf("%#v", ft)), c.id("c")), jen.Return()),
				lv().Op("=").Add(c.id("x")),
			))
			continue
		}
		t := v.typ
		if v.boxed {
			t = types.NewPointer(t)
		}
		encBody = append(encBody, c.enc(t, lv))
		decBody = append(decBody, c.dec(t, lv))
	}
	decBody = append(decBody, c.id("dec").Dot("CheckResume").Call(append([]jen.Code{jen.Id(p.recv).Dot("PC")}, c.resumePoints()...)...))
	e.file.Commentf("EncodeState writes the fields of %s's frame into a snapshot (cogenrt.DurableFrame).", name)
	e.file.Func().Params(fr()).Id("EncodeState").Params(c.id("enc").Op("*").Add(sl("Encoder"))).Block(encBody...)
	e.file.Commentf("DecodeState reads back what EncodeState wrote (cogenrt.DurableFrame).")
	e.file.Func().Params(fr()).Id("DecodeState").Params(c.id("dec").Op("*").Add(sl("Decoder"))).Block(decBody...)

	for i := 0; i < len(c.helpers); i++ { // helpers may add helpers
		c.helper(i + 1)
	}

	e.file.Func().Id("init").Params().Block(
		sl("RegisterDurable").Call(jen.Lit(regName), jen.Lit(fp), jen.Func().Params().Add(sl("DurableFrame")).Block(
			jen.Return(jen.New(jen.Id(fn.FrameName))))))
}

// durableFields are the frame's fields in struct order.
func durableFields(p *plan) []*variable {
	var out []*variable
	for _, v := range p.vars {
		if v.field && v.shares == nil && !(v.kind == kParam && v.obj == nil) {
			out = append(out, v)
		}
	}
	return out
}

// resumePoints lists the PCs a suspended frame can stand at, with what
// it does there (cogenrt.ResumePoint): the entry, the states that start
// with a waiting call (of which kind), and the states after a call (with
// whether the callee's field holds a frame, read after decoding).
func (c *durableCodec) resumePoints() []jen.Code {
	type point struct {
		pc     int
		kind   string
		callee *variable
	}
	pts := []point{{pc: 0, kind: "ResumeEntry"}}
	for _, b := range c.fn.plan.blocks {
		if b.suspend {
			kind := "ResumeWait"
			if len(b.nodes) > 0 {
				if sn, ok := b.nodes[0].(*suspendNode); ok && sn.handle {
					if sel, ok := sn.call.Fun.(*ast.SelectorExpr); ok {
						switch sel.Sel.Name {
						case "Gosched", "Yield", "Sleep":
							kind = "Resume" + sel.Sel.Name
						}
					}
				}
			}
			pts = append(pts, point{pc: b.index, kind: kind})
		}
		if ct, ok := b.term.(*callTerm); ok {
			pts = append(pts, point{pc: ct.next.index, kind: "ResumeCall", callee: ct.child})
		}
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].pc < pts[j].pc })
	var out []jen.Code
	for _, pt := range pts {
		fields := []jen.Code{jen.Id("PC").Op(":").Lit(pt.pc), jen.Id("Kind").Op(":").Add(c.e.gq(cogenrtPath, pt.kind))}
		if pt.callee != nil {
			v := pt.callee
			if v.shares != nil {
				v = v.shares
			}
			fields = append(fields, jen.Id("Callee").Op(":").Id(c.fn.plan.recv).Dot(v.name).Op("!=").Nil())
		}
		out = append(out, c.e.gq(cogenrtPath, "ResumePoint").Values(fields...))
	}
	return out
}

var lineDirectiveRE = regexp.MustCompile(`//line [^\n]*|/\*line [^*]*\*/`)

// fingerprint hashes what the frame's encoding and resumption depend on:
// the Step code (without its //line directives, so that moving the
// function in its file keeps it) and the fields' names and type layouts.
func (c *durableCodec) fingerprint(step []jen.Code, fields []*variable) uint64 {
	h := sha256.New()
	code := lineDirectiveRE.ReplaceAllString(fmt.Sprintf("%#v", jen.Block(step...)), "")
	fmt.Fprintf(h, "cogen durable 1\n%s\n", code)
	for _, k := range c.fn.versionKeys {
		fmt.Fprintf(h, "%s\n", k)
	}
	for _, v := range fields {
		if v.kind == kChild {
			fmt.Fprintf(h, "%s child %s\n", v.name, v.child.fn.FrameName)
			continue
		}
		fmt.Fprintf(h, "%s %t %s\n", v.name, v.boxed, c.schema(v.typ, map[types.Type]bool{}))
	}
	sum := h.Sum(nil)
	return binary.LittleEndian.Uint64(sum[:8])
}

// schema describes the layout of t as the encoder sees it: for a type a
// codec serves, the codec's name (what Marshal writes is not known).
func (c *durableCodec) schema(t types.Type, seen map[types.Type]bool) string {
	t = types.Unalias(t)
	qual := func(t types.Type) string { return types.TypeString(t, nil) }
	if cv := c.codecs.codec(t); cv != nil {
		return "codec(" + cv.id() + ")" + qual(t)
	}
	if n, ok := t.(*types.Named); ok {
		if isTime(t) {
			return "time(zone)"
		}
		if isBinaryCodec(t) {
			return "binary(" + qual(t) + ")"
		}
		if seen[t] {
			return "ref(" + qual(t) + ")"
		}
		seen[t] = true
		return qual(t) + "=" + c.schema(n.Underlying(), seen)
	}
	switch u := t.(type) {
	case *types.Slice:
		return "[]" + c.schema(u.Elem(), seen)
	case *types.Array:
		return fmt.Sprintf("[%d]%s", u.Len(), c.schema(u.Elem(), seen))
	case *types.Pointer:
		return "*" + c.schema(u.Elem(), seen)
	case *types.Map:
		return "map[" + c.schema(u.Key(), seen) + "]" + c.schema(u.Elem(), seen)
	case *types.Struct:
		var b strings.Builder
		b.WriteString("struct{")
		for i := range u.NumFields() {
			f := u.Field(i)
			fmt.Fprintf(&b, "%s %s;", f.Name(), c.schema(f.Type(), seen))
		}
		return b.String() + "}"
	}
	return qual(t)
}

// helperIndex returns the number of the helper pair of t, adding it.
func (c *durableCodec) helperIndex(t types.Type) int {
	for i, h := range c.helpers {
		if types.Identical(h, t) {
			return i + 1
		}
	}
	c.helpers = append(c.helpers, t)
	return len(c.helpers)
}

// basic returns t's basic underlying type if values of t are encoded
// inline, else nil.
func (c *durableCodec) basic(t types.Type) *types.Basic {
	if c.codecs.codec(t) != nil || isBinaryCodec(t) {
		return nil
	}
	b, _ := t.Underlying().(*types.Basic)
	return b
}

// byteSized tells whether slices and arrays of elem are written one byte
// per element, by stackless's Encode<kind>Elems and Decode<kind>Elems:
// kind is "Byte" for the integers of 8 bits and "Bool" for booleans, ""
// for any other element (one a codec or MarshalBinary serves included).
// isByte reports an element identical to byte, whose slices convert to
// []byte and go through Encoder.Bytes and Decoder.Bytes.
func (c *durableCodec) byteSized(elem types.Type) (kind string, isByte bool) {
	b := c.basic(elem)
	if b == nil {
		return "", false
	}
	switch b.Kind() {
	case types.Uint8, types.Int8:
		return "Byte", types.Identical(elem, types.Typ[types.Byte])
	case types.Bool:
		return "Bool", false
	}
	return "", false
}

// enc writes the value of the addressable expression lv, of type t.
func (c *durableCodec) enc(t types.Type, lv func() *jen.Statement) jen.Code {
	return c.encAt(t, lv, nil)
}

// encAt is enc with addr, if not nil, the expression of lv's address
// (written instead of &lv, which staticcheck reports when lv is *p).
func (c *durableCodec) encAt(t types.Type, lv, addr func() *jen.Statement) jen.Code {
	b := c.basic(t)
	if b == nil {
		return jen.Id(c.fn.plan.recv).Dot(fmt.Sprintf("cogenEnc%d", c.helperIndex(t))).Call(c.id("enc"), addressOf(lv, addr))
	}
	enc := func(m string, conv string, x jen.Code) jen.Code {
		return c.id("enc").Dot(m).Call(jen.Id(conv).Parens(x))
	}
	switch i := b.Info(); {
	case i&types.IsBoolean != 0:
		return enc("Bool", "bool", lv())
	case i&types.IsUnsigned != 0:
		return enc("Uint", "uint64", lv())
	case i&types.IsInteger != 0:
		return enc("Int", "int64", lv())
	case i&types.IsFloat != 0:
		return enc("Float", "float64", lv())
	case i&types.IsComplex != 0:
		return jen.Block(enc("Float", "float64", jen.Real(lv())), enc("Float", "float64", jen.Imag(lv())))
	case i&types.IsString != 0:
		return enc("String", "string", lv())
	}
	panic("cogen: internal error: unencodable basic type " + b.String())
}

// dec reads a value of type t into the addressable expression lv.
func (c *durableCodec) dec(t types.Type, lv func() *jen.Statement) jen.Code {
	return c.decAt(t, lv, nil)
}

// decAt is dec with addr as in encAt.
func (c *durableCodec) decAt(t types.Type, lv, addr func() *jen.Statement) jen.Code {
	b := c.basic(t)
	if b == nil {
		return jen.Id(c.fn.plan.recv).Dot(fmt.Sprintf("cogenDec%d", c.helperIndex(t))).Call(c.id("dec"), addressOf(lv, addr))
	}
	T := c.e.typ(t)
	set := func(x jen.Code) jen.Code { return lv().Op("=").Add(T).Parens(x) }
	bits := 64
	switch b.Kind() {
	case types.Int8, types.Uint8:
		bits = 8
	case types.Int16, types.Uint16:
		bits = 16
	case types.Int32, types.Uint32:
		bits = 32
	}
	switch i := b.Info(); {
	case i&types.IsBoolean != 0:
		return set(c.id("dec").Dot("Bool").Call())
	case i&types.IsUnsigned != 0:
		return set(c.id("dec").Dot("UintN").Call(jen.Lit(bits)))
	case i&types.IsInteger != 0:
		return set(c.id("dec").Dot("IntN").Call(jen.Lit(bits)))
	case i&types.IsFloat != 0:
		return set(c.id("dec").Dot("Float").Call())
	case i&types.IsComplex != 0:
		return set(jen.Complex(c.id("dec").Dot("Float").Call(), c.id("dec").Dot("Float").Call()))
	case i&types.IsString != 0:
		return set(c.id("dec").Dot("String").Call())
	}
	panic("cogen: internal error: undecodable basic type " + b.String())
}

// helper emits the encoding and decoding methods of helper n.
func (c *durableCodec) helper(n int) {
	t := c.helpers[n-1]
	T := func() *jen.Statement { return c.e.typ(t) }
	x := func() *jen.Statement { return jen.Parens(jen.Op("*").Add(c.id("x"))) }
	var enc, dec []jen.Code
	if cv := c.codecs.codec(t); cv != nil {
		ref := func(f string) *jen.Statement { return c.e.varRef(cv.v).Dot(f) }
		enc = append(enc, c.e.gq(cogenrtPath, "EncodeWith").Call(c.id("enc"), ref("Marshal"), c.id("x")))
		dec = append(dec, c.e.gq(cogenrtPath, "DecodeWith").Call(c.id("dec"), ref("Unmarshal"), c.id("x")))
	} else if isTime(t) {
		enc = append(enc, c.id("enc").Dot("Time").Call(c.id("x")))
		dec = append(dec, c.id("dec").Dot("Time").Call(c.id("x")))
	} else if isBinaryCodec(t) {
		enc = append(enc, c.id("enc").Dot("Binary").Call(c.id("x")))
		dec = append(dec, c.id("dec").Dot("Binary").Call(c.id("x")))
	} else {
		switch u := t.Underlying().(type) {
		case *types.Array:
			kind, _ := c.byteSized(u.Elem())
			all := func() *jen.Statement { return c.id("x").Index(jen.Op(":")) }
			if kind != "" {
				enc = append(enc, c.e.gq(cogenrtPath, "Encode"+kind+"Elems").Call(c.id("enc"), all()))
				dec = append(dec, c.e.gq(cogenrtPath, "Decode"+kind+"Elems").Call(c.id("dec"), all()))
				break
			}
			el := func() *jen.Statement { return x().Index(c.id("i")) }
			enc = append(enc, jen.For(c.id("i").Op(":=").Range().Add(x())).Block(c.enc(u.Elem(), el)))
			dec = append(dec, jen.For(c.id("i").Op(":=").Range().Add(x())).Block(
				jen.If(c.id("dec").Dot("Err").Call().Op("!=").Nil()).Block(jen.Return()),
				c.dec(u.Elem(), el)))
		case *types.Slice:
			// Through the snapshot's regions: slices that share an
			// array restore sharing it, pointers into it too.
			elem := u.Elem()
			ST := func() *jen.Statement { return jen.Index().Add(c.e.typ(elem)) }
			kind, _ := c.byteSized(elem)
			var encEl, decEl jen.Code
			if kind != "" {
				encEl = c.e.gq(cogenrtPath, "Encode"+kind+"Elems").Call(c.id("enc"), c.id("s"))
				decEl = c.e.gq(cogenrtPath, "Decode"+kind+"Elems").Call(c.id("dec"), c.id("s"))
			} else {
				el := func() *jen.Statement { return c.id("s").Index(c.id("i")) }
				encEl = jen.For(c.id("i").Op(":=").Range().Add(c.id("s"))).Block(c.enc(elem, el))
				decEl = jen.For(c.id("i").Op(":=").Range().Add(c.id("s"))).Block(
					jen.If(c.id("dec").Dot("Err").Call().Op("!=").Nil()).Block(jen.Return()),
					c.dec(elem, el))
			}
			sv, sp := x(), c.id("x")
			if !types.Identical(t, u) {
				sv, sp = ST().Parens(x()), jen.Parens(jen.Op("*").Add(ST())).Parens(c.id("x"))
			}
			enc = append(enc, c.e.gq(cogenrtPath, "EncodeSlice").Call(c.id("enc"), sv,
				jen.Func().Params(c.id("enc").Op("*").Add(c.e.gq(cogenrtPath, "Encoder")), c.id("s").Add(ST())).Block(encEl)))
			dec = append(dec, c.e.gq(cogenrtPath, "DecodeSlice").Call(c.id("dec"), sp,
				jen.Func().Params(c.id("dec").Op("*").Add(c.e.gq(cogenrtPath, "Decoder")), c.id("s").Add(ST())).Block(decEl)))
		case *types.Map:
			K, V := func() *jen.Statement { return c.e.typ(u.Key()) }, func() *jen.Statement { return c.e.typ(u.Elem()) }
			kv := func(p string) *jen.Statement { return jen.Parens(jen.Op("*").Add(c.id(p))) }
			enc = append(enc, c.e.gq(cogenrtPath, "EncodeMap").Call(c.id("enc"), x(),
				jen.Func().Params(c.id("enc").Op("*").Add(c.e.gq(cogenrtPath, "Encoder")), c.id("k").Op("*").Add(K()), c.id("v").Op("*").Add(V())).Block(
					c.encAt(u.Key(), func() *jen.Statement { return kv("k") }, func() *jen.Statement { return c.id("k") }),
					c.encAt(u.Elem(), func() *jen.Statement { return kv("v") }, func() *jen.Statement { return c.id("v") }))))
			dec = append(dec, c.e.gq(cogenrtPath, "DecodeMap").Call(c.id("dec"), c.id("x"),
				jen.Func().Params(c.id("dec").Op("*").Add(c.e.gq(cogenrtPath, "Decoder")), c.id("k").Op("*").Add(K()), c.id("v").Op("*").Add(V())).Block(
					c.decAt(u.Key(), func() *jen.Statement { return kv("k") }, func() *jen.Statement { return c.id("k") }),
					c.decAt(u.Elem(), func() *jen.Statement { return kv("v") }, func() *jen.Statement { return c.id("v") }))))
		case *types.Struct:
			for i := range u.NumFields() {
				f := u.Field(i)
				if f.Name() == "_" {
					continue
				}
				fl := func() *jen.Statement { return c.id("x").Dot(f.Name()) }
				enc = append(enc, c.enc(f.Type(), fl))
				dec = append(dec, c.dec(f.Type(), fl))
			}
		case *types.Pointer:
			// Through the snapshot's regions: pointers into one
			// value, into a frame's variable or into a slice's
			// array restore pointing into one value.
			elem := u.Elem()
			PT := func() *jen.Statement { return jen.Op("*").Add(c.e.typ(elem)) }
			pv, pp := x(), c.id("x")
			if !types.Identical(t, u) {
				pv, pp = PT().Parens(x()), jen.Parens(jen.Op("*").Add(PT())).Parens(c.id("x"))
			}
			deref := func() *jen.Statement { return jen.Parens(jen.Op("*").Add(c.id("p"))) }
			enc = append(enc, c.e.gq(cogenrtPath, "EncodePtr").Call(c.id("enc"), pv,
				jen.Func().Params(c.id("enc").Op("*").Add(c.e.gq(cogenrtPath, "Encoder")), c.id("p").Add(PT())).Block(
					c.encAt(elem, deref, func() *jen.Statement { return c.id("p") }))))
			dec = append(dec, c.e.gq(cogenrtPath, "DecodePtr").Call(c.id("dec"), pp,
				jen.Func().Params(c.id("dec").Op("*").Add(c.e.gq(cogenrtPath, "Decoder")), c.id("p").Add(PT())).Block(
					c.decAt(elem, deref, func() *jen.Statement { return c.id("p") }))))
		default:
			// A basic type reaches a helper only as the element of a
			// composite, where enc and dec write it inline.
			enc = append(enc, c.enc(t, x))
			dec = append(dec, c.dec(t, x))
		}
	}
	recv := func() *jen.Statement { return jen.Id(c.fn.plan.recv).Op("*").Id(c.frame) }
	c.e.file.Func().Params(recv()).Id(fmt.Sprintf("cogenEnc%d", n)).Params(c.id("enc").Op("*").Add(c.e.gq(cogenrtPath, "Encoder")), c.id("x").Op("*").Add(T())).Block(enc...)
	c.e.file.Func().Params(recv()).Id(fmt.Sprintf("cogenDec%d", n)).Params(c.id("dec").Op("*").Add(c.e.gq(cogenrtPath, "Decoder")), c.id("x").Op("*").Add(T())).Block(dec...)
}

// addressOf is addr() if given, else &lv().
func addressOf(lv, addr func() *jen.Statement) *jen.Statement {
	if addr != nil {
		return addr()
	}
	return jen.Op("&").Add(lv())
}
