// Package gen defines cogen's Analyzer, which checks //co: directives and
// plans the rewrite of marked functions, and the transformer that emits
// the rewritten code.
//
// # Analyzer cogen
//
// cogen: rewrite //co: functions into state machines
//
// A function marked //co:stackless is ordinary Go that runs as a stackful
// coroutine (runtime/stackful). cogen derives its stackless twin, a frame
// struct and a Step method that run on runtime/stackless, and writes it
// beside the source. One source, two models: the marked function keeps
// working as it is, and the generated frame does the same thing without a
// stack of its own. It can be thought of as a compiler pass that turns the
// function's stack frame into a heap object and its control flow into a
// switch over resume points. How each construct is lowered, before and
// after, with the golden files that show it, is docs/lowering.md in the
// repository.
//
// # The source-level API
//
// Mark a function in its doc comment:
//
//	//co:stackless
//	func Echo(co *stackful.Co, fd int) error {
//		var buf [64]byte
//		for {
//			n, err := co.Read(fd, buf[:])
//			if err != nil || n == 0 {
//				return err
//			}
//			if _, err := co.Write(fd, buf[:n]); err != nil {
//				return err
//			}
//		}
//	}
//
// The first parameter is the coroutine handle. Methods (pointer or value
// receivers, called directly or promoted through embedded fields) and
// generic functions can be marked too. The suspension points
// are:
//
//   - calls of the handle's waiting methods, recognised by go/types: Read,
//     Write, Accept and Connect and their Timeout variants, Poll, Sleep,
//     Gosched, Wait, Yield (Close is kept as a plain call);
//   - calls of other //co:stackless functions of the same package, with the
//     handle as first argument (recursion included), and of those of
//     imported packages (not generic ones; see "Marked functions of other
//     packages" below): a handler in one package calls a coroutine-native
//     client of another (client/pg) in both models;
//   - calls of any function or method that pass the handle to a parameter
//     of a handle-protocol interface (runtime/cosync.Handle, or an
//     interface with its methods Waiter, Resumed, Suspend, OpSlot and
//     Begin):
//     ch.Send(co, v), ch.Recv(co), mu.Lock(co), cosync.Select(co, ...),
//     and operations users build on the protocol. The receiver and the
//     arguments are evaluated once, before the state the call starts.
//
// The handle may be used for nothing else: storing it or passing it to an
// unmarked function (other than for a Handle parameter) is a diagnostic; a
// closure that uses it is a closure that suspends (see below).
//
// Add cogen to a module as a tool (Go 1.26, which cogen needs), once:
//
//	go get -tool github.com/cogen-go/cogen/cmd/cogen
//
// and run it with go generate:
//
//	//go:generate go tool cogen
//
// or as go tool cogen ./... . (This repository's go.mod names its own
// cmd/cogen as a tool, so its packages use the same line.) For each source file x.go with marked functions it
// writes x_cogen.go (build-constraining suffixes stay last: x_linux.go
// gives x_cogen_linux.go). For a function F it declares:
//
//	type FFrame struct{ stackless.Base; ... }       // the frame
//	func NewFFrame(params...) *FFrame               // a frame ready for stackless.Spawn
//	func (f *FFrame) Result() (results...)          // the results, once done
//	func (f *FFrame) Step(co *stackless.Task) stackless.Status
//	func (f *FFrame) Where() string                  // import/path/x.go:line of the resume point
//
// For a method T.M the names are TMFrame and NewTMFrame, and the receiver
// is the constructor's first parameter. Unexported functions give
// unexported names (fFrame, newFFrame). Generic functions give generic
// frames. A call of another marked function becomes a child frame and
// Task.Call. The generated code uses runtime/stackless only; types the
// source mentions (stackful.Cond is loop.Cond) pass through unchanged.
//
// The same function runs in both models on one loop:
//
//	env := stackful.NewEnvOn(l)
//	co := env.Create(func(co *stackful.Co) { Echo(co, fd1) }, nil)
//	co.Resume()                                // stackful: runs to its first wait
//
//	frame := NewEchoFrame(fd2)
//	t := stackless.Spawn(l, frame)             // stackless: queued on the loop
//	if err := stackless.Run(l, t); err == nil { // runs l until t is done
//		err = frame.Result()                   // what Echo returned
//	}
//
// Yield keeps its meaning per model: a stackful coroutine goes back to its
// resumer, a stackless task waits for Task.Resume.
//
// # What is rewritten
//
// Statements: assignments of every form, var and const declarations, short
// variable declarations with shadowing, if/else chains with init
// statements, for loops of every shape with Go 1.22 per-iteration
// variables, range over slices, arrays, pointers to arrays, strings, maps,
// integers, channels and function iterators, expression switches (with
// init, tagless, fallthrough), type switches, labeled break and continue,
// goto, returns (multiple, named, bare), inc/dec and blocks.
//
// Expressions: a suspension point may appear anywhere in an expression. It
// is hoisted into an earlier state; && and || evaluate a suspending right
// operand only when the left one does not decide. Arguments of a waiting
// call are evaluated once: the call itself is retried after a wake-up
// (that is the runtime/stackless contract), so anything that could change
// in between is kept in a temporary.
//
// # Evaluation order
//
// The generated code evaluates every operand in the order the gc compiler
// does for the same source (its order pass, cmd/compile/internal/walk/order.go,
// is the reference: where the spec leaves the order open, gc's choice is
// what users observe). gc evaluates a statement in two sweeps: first, left
// to right, the operands it evaluates in place (each into a temporary),
// then the rest, which reads variables, fields, elements and pointers after
// every call of the statement. A suspension point is a call: what gc
// evaluates in place to its left is evaluated before it, the rest after it.
//
// Evaluated in place, before the operands to their right:
//
//   - calls of functions, methods and closures (suspension points included);
//   - the builtins len, cap, min, max, new, make, append, copy, complex,
//     real, imag and recover;
//   - conversions of a string to []byte or []rune;
//   - receives (<-ch);
//   - && and || expressions, as a whole;
//   - slice expressions (s[i:j], a[i:j:k], str[i:j]);
//   - type assertions x.(T), unless T is pointer-shaped (a pointer, map,
//     channel or function, or a struct or array wrapping exactly one) or
//     is built from a type parameter (gc's dynamic assertion is late);
//   - a map lookup whose key converts bytes to a string (m[string(b)], or a
//     struct or array literal holding such a conversion);
//   - a map literal with non-constant entries; gc inserts them one at a
//     time, so the entries before one that suspends are evaluated
//     completely, keys and values, before it;
//   - values that gc copies to pass their address: an operand that is not
//     addressable converted to an interface (explicitly, or by assignment
//     to an interface-typed parameter, element, variable or result), unless
//     its type is 2, 4 or 8 bytes without pointers or a single string or
//     slice (any(p.x + 1) is late for an int p.x, any(p.x > 0) is in
//     place); a struct or array that is not addressable compared with == or
//     !=; a key that is not addressable of a map whose keys are neither
//     strings nor 4 or 8 bytes of plain memory (or whose elements are
//     larger than 128 bytes);
//   - the key of a map whose keys are 4 or 8 bytes of plain memory or a
//     string, when the key is a struct or an array (struct{ a, b int32 },
//     [8]byte, struct{ s string }), even a variable: gc copies it to pass
//     it by value (integer, pointer and string keys are read late).
//
// Evaluated late, after every call of the statement: variables, struct
// fields, pointer indirections, elements of slices, arrays and strings,
// other map lookups, other conversions (string(b), float64(x), any(x) of an
// addressable x), the unsafe builtins (unsafe.Add, unsafe.Slice,
// unsafe.String, unsafe.SliceData, unsafe.StringData), arithmetic and
// comparisons, method values (the receiver is
// read then), function literals, constants, and composite literals of
// structs, arrays and slices, whose elements are operands like any other.
// So in t.Printf("%d %d", len(s), grow(co, &s)) len(s) is the length before
// grow, while in use(p.x, f(co)) p.x is read after f.
//
// Statements: the index and indirection operands of an assignment's left
// side are read late (their in-place parts come before the right side's);
// a switch evaluates its tag before the cases, and the cases one by one
// until one matches; a range expression is evaluated once, before the loop,
// and not at all when only the index is used over an array, or a pointer to
// an array, whose length is constant (range *p with a nil p does not
// panic); go and defer statements evaluate the function value and the
// arguments at the statement. The sizes that decide the in-place cases
// above are those of 64-bit targets, and a build with -race (which makes gc
// copy every map lookup and type assertion at its place) may order
// differently than the generated code. TestEvalOrderMatrix checks every
// operand kind in every position against gc.
//
// The promise is gc's order for calls that gc does not inline. A
// suspension point is a call of a frame in the generated code, never
// inlined, while gc may inline a small marked function in the stackful
// model, and in one place its order then changes: a map literal with
// non-constant entries inserts them one at a time, so an entry read late
// (m["k"], a variable) is inserted before a suspending call in a later
// entry, unless gc inlines that call, whose body it then orders before
// the insertions. In map[string]any{"a": m["k"], "b": set(co, m, 2)},
// where set changes m["k"], the generated code reads m["k"] before set
// runs, as gc does when set is not inlined (//go:noinline, -gcflags=-l, or
// a body too large for the inliner); an inlined set gives the value after.
// To get one order in every build, evaluate such an operand into a
// variable before the statement, or mark the function //go:noinline.
// Slice, struct and array literals and call arguments do not depend on
// inlining.
//
// Generic code: gc compiles a generic function once per shape of its type
// arguments (their underlying types, every pointer alike) and takes the
// decisions above that depend on a type (its size, its equality, being
// pointer-shaped) per shape. cogen takes them on every type the type
// parameter's constraint lists: where they agree (a map keyed by a
// ~int32 | ~int64 parameter, a [2]int | [3]int value converted to an
// interface), that is the order of every instance. Where they do not, or
// the constraint lists no types (any, comparable, methods only), the
// operand is kept late when nothing can observe its order (a constant, or
// a local variable whose address is never taken and that no function
// literal captures: m[k] = load(co, k) with a parameter k is fine), and
// is refused otherwise ("depends on the type arguments' shapes"): evaluate
// it into a variable before the statement.
//
// The lowering builds new expressions around the user's sub-expressions
// (a switch tag compared with a case, a negated condition, an operand
// whose neighbour became a temporary): they are rendered with every
// parenthesis precedence requires, so a moved expression keeps its
// meaning. Composite literals whose element type is elided keep it elided,
// or have it written out when they are evaluated into a temporary.
//
// Statements without suspension points are copied whole, with their own
// structure, so the generated code stays close to the source; only the
// branches and returns in them that leave them are rewritten.
//
// Liveness analysis keeps in the frame only the values live across a
// suspension (plus parameters, results and the child frame of a call);
// everything else is a local of Step. Fields of the same type whose values
// are never live at the same time share storage, as registers do. A variable whose address is taken
// and whose declaration runs more than once per call (in a loop) gets a new
// heap cell each time, as Go gives it a new variable.
//
// # Defer, panic and recover
//
// A defer statement evaluates the function value and the arguments where it
// stands, as Go does, and records the call in the frame (the frame then
// embeds cogenrt.Defers; frames of functions without defer statements are
// unchanged). The recorded calls run last-in first-out on every return path,
// after the results are set, so deferred closures can change named results;
// a defer in a loop records one call per iteration. When a panic unwinds the
// task, each frame's recorded calls run, innermost frame first (Task.Call
// children included). They are run by Go's own defer mechanism with the
// panic in flight (see cogenrt.Defers), so the builtin recover keeps its
// exact meaning: it stops the panic only when called directly by a deferred
// function, the frame whose deferred call recovered returns normally to its
// caller (which goes on in the same run), a deferred call that panics
// replaces the panic in flight, and an unrecovered panic ends the task with
// the last value, which stackless.Run re-panics in its caller. A deferred
// call cannot suspend (it runs outside the frame's steps): deferring a
// waiting method or a marked function is a diagnostic.
//
// # Go statements
//
// A go statement in a marked function stays a go statement: it starts an
// ordinary goroutine in both models, its operands evaluated where it
// stands (they may suspend). Its call cannot suspend (a diagnostic): the
// new goroutine has no coroutine handle. There is no source form that
// means "a new coroutine of my own model" in both models yet; a coroutine
// started by the caller with its model's API (Env.Create, stackless.Spawn,
// the groups' Go and Spawn) is the way to get one. The goroutine must not
// touch the loop's state: it talks to the coroutine through what is safe
// across goroutines (atomics, Loop.Submit, cosync's Go* methods).
//
// # Closures that suspend
//
// A function literal of a marked function that suspends (it uses the
// function's handle, takes a handle as its first parameter and is passed
// the function's, or calls a local variable holding a literal that
// suspends) becomes a frame of its own, named after the
// function (runFunc1Frame for the first in Run), and calling it is a call
// of that frame, like a call of a marked function. It must be called where
// it is defined: at once (func() { ... }()), or through a local variable
// defined from it (g := func...; var g = func...) that is only ever called,
// in the function or in literals (which then suspend too). Its frame holds
// pointers to the variables it captures (and to those that the literals it
// calls capture from outside it), so they are shared by reference exactly as
// Go shares them (with the function and with other literals; a variable
// declared in a loop is a new one per iteration). Literals nest, and have
// defers, results and named results like functions. A literal that suspends
// and escapes (passed to a function, stored, returned, used as a value, or
// its variable used other than by calling it) is a diagnostic saying which;
// so is one in a generic function.
//
// Range over a function iterator keeps Go's semantics exactly, those of
// the code gc compiles for it (cmd/compile's rangefunc rewrite), misbehaving
// iterators included. A loop without suspension points is copied as it
// is, so gc compiles it; a jump or return that leaves it for a state of
// the frame changes state only after its iterator function has returned,
// so the iterators of loops around it are stopped and the frame's deferred
// calls run after it, as in Go. A loop whose body (or range expression)
// suspends runs its iterator as a pull iterator, cogenrt.Range (on
// iter.Pull), which keeps gc's state per loop:
//
//   - each iteration resumes the iterator, whose yield returns true; a
//     break, return, goto or branch to an outer statement makes yield return
//     false and runs the iterator function to its end before the jump;
//   - a call of yield after it returned false panics with the runtime error
//     "range function continued iteration after function for loop body
//     returned false"; one while the body runs or after it panicked, with
//     "... after loop body panic"; one after the iterator function returned
//     (a kept yield), with "... after whole loop exit";
//   - a panic of the body unwinds the iterator function: its pending yield
//     panics with the same value, so the iterator's deferred calls see it
//     (and may replace it), and yield never returns. The frame's Unwind
//     method (cogenrt.Unwinder) does this for the loops the panic leaves,
//     innermost first, before the frame's deferred calls run; they then see
//     what came out of the iterators;
//   - an iterator function that returns normally after its yield panicked
//     (it recovered the panic) panics with "range function recovered a loop
//     body panic and did not resume panicking".
//
// The panic values are the runtime's own (runtime.Error values, equal
// under == to those of compiled loops). The yield parameter may have a
// defined type (type yieldFn func(int) bool): the iterator is given a
// yield of that type. What differs comes from the iterator function
// running on a goroutine of its own (iter.Pull's coroutine) while the body
// runs in the frame: runtime.Caller and stack traces from the iterator show
// that goroutine; runtime.Goexit in it ends the goroutine that runs the
// loop (iter.Pull passes it on); and a kept yield called after the
// iterator function itself panicked, and the panic was recovered, returns
// false where gc's code would run the loop body again. Range over
// a map iterates over a snapshot of its keys, looking each one up before
// its iteration: entries deleted before they are reached are not produced,
// as the language requires.
//
// # Durable functions
//
// //co:stackless durable marks a function whose frame can be carried in
// bytes: runtime/stackless's Snapshot encodes a task suspended in Gosched,
// Yield or Sleep whose frames are all durable, and Restore resumes it on
// any loop, in this process or another one running the same code. Besides
// Step, the frame of a durable function gets Durable (its registered name,
// the function's package path and name, and a fingerprint), EncodeState and
// DecodeState, helper methods cogenEncN and cogenDecN (one pair per
// encoded composite type), and an init function that registers the frame
// type: no user code is needed.
//
// Every frame field (the parameters, the results and the values live
// across a suspension) is encoded by its type: booleans, integers, floats,
// complex numbers and strings of any named or unnamed type; slices, arrays
// and maps of encodable types (nil and empty stay distinct; maps are
// written in iteration order, so snapshots are not byte-for-byte
// reproducible); structs whose fields are all encodable and either
// exported or of the package being generated (blank fields restore to
// zero); pointers, through a table that keeps sharing: two pointers of
// one type to one value restore to one value, cycles included (slices that
// share a backing array restore to separate arrays, and a pointer to an
// element of a slice to a value of its own); types whose pointer
// implements encoding.BinaryMarshaler and BinaryUnmarshaler (time.Time),
// through those methods; types that a registered codec serves (below); and
// the frames of durable callees, of this package or another. Integers are
// written as 64-bit varints. Slices and arrays of byte-sized elements
// (byte, uint8, int8 and bool kinds, named or not) are written one byte
// per element, in one call: stackless's Encoder.Bytes and Decoder.Bytes
// for the slices that convert to []byte, EncodeByteElems, DecodeByteElems,
// EncodeBoolElems and DecodeBoolElems for the others and for arrays.
//
// A registered codec is a package-level variable of type
// runtime/stackless.Codec[T] (a Marshal and an Unmarshal function; its doc
// states their contract). cogen finds codecs by type, with no directive:
// those declared in the package being generated, and the exported ones of
// the packages its files import (a package imported only for its codecs is
// imported blank: import _ "example.com/codecs"). A codec serves exactly
// T, whatever T is: a struct of another package with unexported fields
// (big.Int, regexp.Regexp), an interface (error), a func, a generic type.
// It takes precedence over T's MarshalBinary and over the field-by-field
// encoding. T must not be a pointer type (a Codec[*T] is reported at its
// declaration): a *T goes through the pointer table like every pointer,
// so sharing is kept, and the codec carries the pointee once. When two
// codecs serve one T, one declared in the package wins over imported ones;
// two of the same rank (two in the package, or none there and two
// imported) are reported at every value of T a durable frame holds, naming
// both. Codecs declared in, or imported only by, _test.go files serve only
// the durable functions of _test.go files. The generated encoding calls
// cogenrt.EncodeWith and DecodeWith with the codec (codecs.BigInt.Marshal and Unmarshal);
// cogen cannot see what Marshal writes, so the fingerprint records which
// codec serves a type, not its format (Codec's doc says how to change a
// codec's format).
//
// Anything else that a durable function keeps in its frame is reported at
// its position, naming the variable and its type, and, where a codec would
// do, how to declare it: channels, funcs, interfaces (error included: the
// dynamic type is not known), unsafe pointers, structs of other packages
// with unexported fields (os.File, sync.Mutex, ...), unexported types of
// other packages (reached through exported fields: generated code cannot
// name them), types declared inside a function, generic types, and calls
// of marked functions that are not durable. So are a defer statement (its
// pending calls are funcs), a function literal that suspends, a
// range-over-func loop that suspends, and a generic durable function (its
// frame types are not known at init).
//
// The fingerprint is a hash of the generated Step code (without its //line
// directives, so that moving the function in its file keeps it) and of
// the frame fields' names and type layouts, named types expanded, a type
// that a codec serves named with the codec's package path and name (so
// that moving a type between field-by-field and codec encoding, or to
// another codec, changes it). Restore refuses bytes whose fingerprint is
// not the running program's, naming the function; runtime/stackless's
// durable.go documents the format and how to change a durable function
// while snapshots of it exist.
//
// # Using cogen
//
//	cogen [-n] [-tags list] [packages]
//
// Packages default to the one in the current directory, so that
// //go:generate go tool cogen needs no arguments. With any diagnostic cogen writes
// nothing and exits with status 1; bad usage exits with status 2. With -n
// cogen only checks: it writes nothing and exits with status 1 if there is
// a diagnostic or a generated file is missing, stale (differs from what
// cogen would write now) or no longer needed, so CI and pre-commit hooks
// can run cogen -n ./... . Checking is a fixed point of generating: right
// after cogen ran, cogen -n and go vet -vettool=cogen pass (the output
// does not depend on whether earlier output was loaded with the package).
// Generated files that are no longer needed (their source has no
// marked function left) are removed. A package may use its own generated
// frames (or another package's): references to the names about to be
// generated do not stop a regeneration.
//
// # Marked functions of other packages
//
// cogen recognises a marked function of an imported package two ways.
// The packages of the main module (of every module of a go.work
// workspace) and of modules replaced by a local directory are the ones a
// run may be regenerating: cogen reads their source and recognises their
// functions by the //co:stackless directive (durable by its argument).
// A package calling them is generated alike whether they are generated
// in the same run (cogen ./..., listed in any order), in an earlier run,
// in a later one (go generate ./... runs cogen package by package, in
// path order) or not yet, and whether their generated files are missing,
// current or stale. The packages of other modules, and every package
// under go vet -vettool=cogen (which sees imported packages through
// their export data only), are recognised by what cogen generated for
// them there: the frame type and constructor under the generated names,
// the constructor taking the function's parameters without the handle
// (the receiver first, for a method), the frame's Result returning its
// results, and EncodeState for a durable one. Both ways agree once the
// imported package's generated files are current, so go vet finds
// current what cogen wrote; a package of another module must have been
// generated (its generated files committed) for its callers to be.
//
// # Names
//
// The generated code is hygienic: every name it introduces is chosen
// against every name it could capture or be captured by, and every name of
// the source keeps its meaning.
//
//   - The frame and constructor of a marked function are its API (above);
//     a package-level declaration with one of those names is a diagnostic.
//     Those of a function literal (runFunc1Frame) skip to the next number
//     while the name is taken at package level.
//   - Each generated file imports the packages it refers to (those of the
//     source and those it reaches only through types, plus
//     runtime/stackless, unicode/utf8 and unsafe) under the
//     package's own name when that name is free, else under name1, name2,
//     and so on. A name is free when it is not a keyword, a predeclared
//     identifier, a package-level name of the package (earlier output
//     aside: the choice does not depend on it), an identifier of a
//     function the file rewrites (a local, a parameter, a type parameter,
//     a label; package names excepted), a name given to anything in their
//     generated code, or another import of the file.
//   - In a frame's methods, a variable of the source keeps its name unless
//     another variable already holds it in the same Step, or it is
//     predeclared, package-level or a frame member (PC, Base, Step, Result,
//     Defer, Where, Unwind, ...); then it gets name1, name2, ... . A name the
//     generator invents (the receiver f, temporaries, iterator functions,
//     labels, the locals of the code it writes) also avoids every
//     identifier of the function, so it can shadow none of them, and the
//     file's imports. The parameters and locals of a durable frame's
//     encoding methods (enc, dec, x, ...) avoid the package-level names and
//     the file's imports, and an import chosen after them avoids them.
//   - A type declared in the function's body keeps its name, so %T,
//     reflection and error texts read the same in both models. Types
//     declared outside statements copied whole move to the top of Step;
//     a package-level type one of them shadows is named there by an alias
//     (type item1 = item) declared first, which changes no type's name or
//     identity. Variables leave the names of the function's types to them.
//
// Only a declaration that hides a predeclared identifier from generated
// code cannot be worked around: it is a diagnostic (see Diagnostics).
//
// # Diagnostics
//
// [Analyzer] reports, at file:line:col, every construct cogen does not
// rewrite; this is the complete list (a construct the transformer cannot
// handle is a diagnostic, never wrong code):
//
//   - unknown or misplaced //co: directives, and //co:stackless with
//     arguments;
//   - a marked function without a body, without the handle *stackful.Co
//     as its first parameter or with a variadic one, and a method whose
//     receiver type cannot name a frame;
//   - a frame or constructor name that collides with a package-level
//     declaration, with the name of an import of a file of the package,
//     or with the generated names of another marked function;
//   - misuse of the handle: using it other than by calling its waiting
//     methods (stored, passed to an unmarked function other than for a
//     handle-protocol parameter, or used by a closure that cannot be
//     rewritten with it), a method value of it, its methods called on
//     another handle, methods without a stackless counterpart, a marked
//     function called without the caller's handle, the handle spread from a
//     slice;
//   - a go statement whose call suspends, and a deferred call that suspends;
//   - a closure that suspends and escapes (passed, stored, returned, used
//     as a value), and a closure that suspends in a generic function;
//   - select with a suspension point in it (cosync.Select is the way);
//   - a range statement whose iteration targets contain a suspension point
//     (for a[next(co)] = range s);
//   - range across a suspension over a map whose keys can be NaN;
//   - a value live across a suspension whose type is declared inside the
//     function (the frame is a package-level type; a local alias of a
//     package-level type is fine: the frame names the aliased type), and
//     a variable whose type generated code cannot name (unexported in
//     another package);
//   - a type declared in the function's body outside statements copied
//     whole that cannot keep its name at the top of Step (see Names): a
//     second one with the same name, one named like a predeclared
//     identifier, one that shadows a package-level function, variable,
//     constant or generic type the function also uses;
//   - a package-level declaration or a type parameter of a marked function
//     that hides a predeclared identifier generated code uses on its own
//     (any, append, bool, false, len, make, new, nil, panic, string), or
//     the predeclared type of a value generated code declares (a
//     package-level int and a variable of type int).
//
// A diagnostic that starts with "internal error" is a bug of cogen.
//
// The same analyzer runs under go vet:
//
//	go vet -vettool=$(go tool -n cogen) ./...
//
// Under go vet it also reports a generated file that differs from what
// cogen would write now (a source edited without regenerating).
//
// # Blocking calls
//
// Package [github.com/cogen-go/cogen/gen/blocking] is the analyzer that
// reports what waits in Go's scheduler in coroutine code (time.Sleep, Go
// channels, sync.WaitGroup.Wait, file and process I/O, a sync.Mutex held
// across a suspension...), with the fixes go fix applies; its doc is the
// manual of those reports. cogen runs it under go vet beside this
// package's Analyzer; generation does not stop for its reports, as the
// code compiles and runs as written in both models.
//
// # Output
//
// Generated files start with "// Code generated by cogen. DO NOT EDIT." and
// "// Source: <file>" (a //go:build line of the source comes first), are
// gofmt'd and byte-identical on every run, and carry //line directives that
// map them back to the source, so that runtime.Caller, panics and coverage
// point at the user's lines. Every statement, and every condition, switch
// tag and case that a state evaluates, starts with a //line directive (a
// directive holds until the next one in the file's text, whatever the
// order the states run in); inside an expression that spans several source
// lines, an inline /*line*/ directive goes before each token that gives an
// operation its position in gc (a call's parenthesis, an index bracket, a
// binary operator, a selector, an assertion), so that a call or a panic
// reports the line gc reports for the source. The one difference: a
// deferred call that runs as the frame returns sees, as its caller, the
// frame's deferred-call record (near its defer statement), where Go shows
// the return statement. testdata/cogen/linematrix.go probes every
// position in both models (see gen/linematrix_test.go). A guard function, like stringer's, fails to compile when
// the signature of a marked function changes without regenerating; go vet
// with cogen as its tool reports any other difference. Generated inputs
// (ast.IsGenerated) are skipped, and earlier output is ignored while
// loading, so a stale file never blocks regeneration.
package gen
