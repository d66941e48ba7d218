package gen

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The lowered form of a marked function is a flat list of basic blocks. A
// block is a state of the frame's Step method: straight-line nodes ended by a
// terminator. A block that starts with a suspension is entered with PC equal
// to its index, so that the suspended call is retried on wake-up.

// plan is the lowered form of one marked function.
type plan struct {
	fn   *Func
	info *types.Info
	// objVars and synth resolve identifiers to variables: objects of the
	// source, and the identifiers the lowering made for temps.
	objVars map[types.Object]*variable
	synth   map[*ast.Ident]*variable
	stypes  map[ast.Expr]types.Type // types of expressions the lowering built
	// litTypes are the types of composite literals whose type the source
	// elides, evaluated into a temporary: the rendering writes them out.
	litTypes map[*ast.CompositeLit]types.Type
	recv     string // name of the frame receiver in generated methods
	task     string // name of the task parameter of Step
	label    string // label of the dispatch loop, if a jump needs it
	vars     []*variable
	blocks   []*block
	// hoisted holds local const and type declarations, rendered at the
	// top of Step in source order.
	hoisted []*ast.GenDecl
	// pkgAliases name, in Step, the package-level types that a hoisted
	// local type of the same name shadows there: Step starts with
	// type <alias> = <name> for each.
	pkgAliases map[types.Object]string
	// params are the frame fields set by the constructor, in order; nil
	// entries are blank or unnamed parameters.
	params  []*variable
	results []*variable
	// recvVar is the method receiver, if any.
	recvVar *variable
	// stops are the cogenrt.Range values of the range-over-func loops
	// whose bodies suspend: jumps out of the loops stop them, and Unwind
	// unwinds them when a panic leaves the frame.
	stops []*variable
	// unwindParam names the panic parameter of the Unwind method.
	unwindParam string
	// hasDefer: the function has defer statements; its frame embeds
	// cogenrt.Defers and every return runs them.
	hasDefer bool
	names    *namer // for names the rendering invents
	dispatch bool   // some jump from nested code continues the dispatch loop
}

func (p *plan) fieldVars() []*variable {
	var out []*variable
	for _, v := range p.vars {
		if v.field && v.shares == nil {
			out = append(out, v)
		}
	}
	return out
}

// shared reports whether v's frame field also holds other variables.
func (p *plan) shared(v *variable) bool {
	if !v.field {
		return false
	}
	if v.shares != nil {
		return true
	}
	for _, w := range p.vars {
		if w.shares == v {
			return true
		}
	}
	return false
}

type varKind uint8

const (
	kParam  varKind = iota // a parameter (or the receiver)
	kResult                // a result, named or not
	kLocal                 // a variable declared at the lowered level
	kTemp                  // a value the lowering introduced
	kConst                 // a local constant or type, hoisted to the top of Step
	kChild                 // the frame of a called //co:stackless function
)

// A variable is a value of the function that the generated code names
// outside the statement that declares it: a frame field or a local of Step.
type variable struct {
	id   int
	name string
	typ  types.Type
	obj  types.Object // nil for temps and children
	kind varKind
	pos  token.Pos
	// addrTaken: the variable may be accessed through a pointer or a
	// closure, so a write does not end its previous value's life.
	addrTaken bool
	// boxed: the variable is address-taken and its declaration can run
	// more than once per call; each run allocates a new variable, as Go does.
	boxed bool
	// field: the variable lives in the frame (it is live across a
	// suspension, or it is a parameter or result).
	field bool
	// desc says, for a temporary, what it holds in the user's words.
	desc string
	// child describes the callee frame for kChild.
	child *callee
	// shares is the variable whose frame field this one uses, when their
	// values are never live at the same time.
	shares *variable
	// pinned: the variable keeps a field of its own, read outside Step.
	pinned bool
}

type block struct {
	index   int
	nodes   []node
	term    term
	suspend bool // the block starts with a suspension point
	// computed by liveness
	liveIn  bitset
	liveOut bitset
}

// A node is a straight-line piece of a block.
type node interface{ isNode() }

// stmtNode is a statement of the source (possibly rewritten). If nested is
// set the statement is copied with its structure (it has no suspension
// point) and jumps or returns inside it that leave it become state changes.
type stmtNode struct {
	stmt   ast.Stmt
	pos    token.Pos
	nested *nestedInfo
}

// nestedInfo records, for a statement copied with its structure, where the
// branch statements and returns inside it that leave it go.
type nestedInfo struct {
	jumps   map[*ast.BranchStmt]jump
	returns map[*ast.ReturnStmt][]*variable // range-over-func stops to call
	// exits are the blocks that returns from inside range-over-func loops
	// of the statement go to once the results are set (see nested).
	exits   map[*ast.ReturnStmt]*block
	targets []*block
}

// jump is a transfer of control to a block, after stopping the iterators of
// the range-over-func loops it leaves.
type jump struct {
	to    *block
	stops []*variable
}

// boxNode allocates a new variable: v = new(T).
type boxNode struct{ v *variable }

// zeroNode resets v to its zero value (a var declaration without value).
// If implicit, the declaration runs at most once per call, so v is still
// zero there (a new frame is zeroed, and Step locals start zeroed): the
// node only marks the definition for liveness.
type zeroNode struct {
	v        *variable
	implicit bool
}

// reboxNode gives a boxed loop variable a fresh copy for the next iteration.
type reboxNode struct{ v *variable }

// suspendNode is a waiting call; it is the first node of its block.
// results are the case-local names of its results (blank for discarded
// ones); targets receive them after the call completes.
type suspendNode struct {
	// handle is set for a waiting method of the coroutine handle (Sleep,
	// Gosched, Yield, Read...), not for a protocol call.
	handle bool
	// orig is the call as the user wrote it (diagnostics name it).
	orig    *ast.CallExpr
	call    *ast.CallExpr
	pos     token.Pos
	results []string
	box     []*variable
	targets []ast.Expr
}

// resultNode reads the results of a finished child frame.
type resultNode struct {
	child   *variable
	results []string
	box     []*variable
	targets []ast.Expr
}

// synthNode is a statement the lowering builds for range loops. defs and
// uses are its variables (a nil def is discarded), in the order of kind.
type synthNode struct {
	kind  synthKind
	defs  []*variable
	uses  []*variable
	types []types.Type
	arity int
	name  string // synthPull: the adapter's parameter
	// yieldType is, for synthPull, the iterator's yield parameter type when
	// it is a type parameter: the adapter converts to it.
	yieldType types.Type
}

type synthKind uint8

const (
	synthMapKeys   synthKind = iota // defs[0] = the keys of map uses[0]; types[0] = key type
	synthPull                       // defs[0] = cogenrt.PullN(uses[0]); types = yield params; arity N; name
	synthPullNext                   // defs[0], defs[1], defs[2] = uses[0].Next(): k, v, ok
	synthStop                       // uses[0].Stop()
	synthDecodeStr                  // defs[0], defs[1] = utf8.DecodeRuneInString(string(uses[0][uses[1]:]))
)

func (*stmtNode) isNode()    {}
func (*boxNode) isNode()     {}
func (*zeroNode) isNode()    {}
func (*reboxNode) isNode()   {}
func (*suspendNode) isNode() {}
func (*resultNode) isNode()  {}
func (*synthNode) isNode()   {}

// A term ends a block.
type term interface{ isTerm() }

type jumpTerm struct{ jump }

type branchTerm struct {
	cond      ast.Expr
	then, els *block
}

// switchTerm dispatches an expression switch whose case expressions do not
// suspend: a native switch that only sets the next state.
type switchTerm struct {
	tag     ast.Expr // nil: tagless
	clauses []switchCase
	dflt    *block // default clause or the exit
}

type switchCase struct {
	exprs []ast.Expr
	to    *block
}

// typeSwitchTerm dispatches a type switch natively and binds the clause
// variables.
type typeSwitchTerm struct {
	x       ast.Expr
	bind    string // name of the switch-local value, "" if no clause binds
	clauses []typeCase
	dflt    typeCase // to is the exit if there is no default clause
}

type typeCase struct {
	types []ast.Expr
	v     *variable // nil if the clause does not use its variable
	to    *block
	pos   token.Pos
}

type returnTerm struct{ stops []*variable }

// callTerm starts a child frame: child = Ctor(args...); PC = next; Call.
type callTerm struct {
	child    *variable
	args     []ast.Expr
	ellipsis bool
	next     *block
	pos      token.Pos
}

// unreachableTerm ends a block that control cannot reach the end of.
type unreachableTerm struct{}

func (*jumpTerm) isTerm()        {}
func (*branchTerm) isTerm()      {}
func (*switchTerm) isTerm()      {}
func (*typeSwitchTerm) isTerm()  {}
func (*returnTerm) isTerm()      {}
func (*callTerm) isTerm()        {}
func (*unreachableTerm) isTerm() {}

// callee is a //co:stackless function called from a marked function.
type callee struct {
	fn       *Func
	typeArgs []types.Type
	key      string
}
