package gen

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/cogen-go/cogen/gen/blocking"
	"golang.org/x/tools/go/packages"
)

// Main is the cogen command (cmd/cogen calls it). It returns the exit
// status: 0 on success, 1 if there were diagnostics or errors (with -n,
// also if a generated file is stale, missing or no longer needed), 2 on
// bad usage. Run by go vet -vettool, it is a unitchecker and does not return.
func Main(args []string, stderr io.Writer) int {
	log.SetFlags(0)
	log.SetPrefix("cogen: ")
	log.SetOutput(stderr)
	if vetInvocation(args) {
		unitchecker.Main(Analyzer, blocking.Analyzer)
		return 0
	}
	fs := flag.NewFlagSet("cogen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("n", false, "check only: write nothing, exit 1 if there are diagnostics or a generated file is stale or missing")
	tags := fs.String("tags", "", "comma-separated build tags to load packages with")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cogen [-n] [-tags list] [packages]\n\n")
		fmt.Fprintf(stderr, "cogen rewrites functions marked //co:stackless into stackless state machines,\n")
		fmt.Fprintf(stderr, "writing <file>_cogen.go beside each source file. Packages default to \".\".\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	files, diags, err := RunDir("", patterns, *tags)
	if err != nil {
		log.Print(err)
		return 1
	}
	for _, d := range diags {
		fmt.Fprintln(stderr, d)
	}
	if len(diags) > 0 {
		return 1
	}
	if *check {
		return checkFiles(files, stderr)
	}
	for _, f := range files {
		if f.Content == nil {
			if err := os.Remove(f.Path); err != nil && !os.IsNotExist(err) {
				log.Print(err)
				return 1
			}
			continue
		}
		if old, err := os.ReadFile(f.Path); err == nil && bytes.Equal(old, f.Content) {
			continue
		}
		if err := os.WriteFile(f.Path, f.Content, 0o666); err != nil {
			log.Print(err)
			return 1
		}
	}
	return 0
}

// checkFiles is cogen -n: it reports each generated file that is missing,
// stale or no longer needed, and returns 1 if there is one, 0 otherwise.
func checkFiles(files []File, stderr io.Writer) int {
	code := 0
	for _, f := range files {
		old, err := os.ReadFile(f.Path)
		switch {
		case f.Content == nil:
			if err == nil {
				fmt.Fprintf(stderr, "%s is no longer needed: run cogen (go generate) again\n", f.Path)
				code = 1
			}
		case os.IsNotExist(err):
			fmt.Fprintf(stderr, "%s is missing: run cogen (go generate)\n", f.Path)
			code = 1
		case err != nil:
			log.Print(err)
			code = 1
		case !bytes.Equal(old, f.Content):
			fmt.Fprintf(stderr, "%s is stale: run go generate (go tool cogen) again\n", f.Path)
			code = 1
		}
	}
	return code
}

// vetInvocation reports whether go vet runs us as its -vettool.
func vetInvocation(args []string) bool {
	for _, a := range args {
		if a == "-flags" || strings.HasPrefix(a, "-V=") {
			return true
		}
	}
	return len(args) > 0 && strings.HasSuffix(args[len(args)-1], ".cfg")
}

// RunDir loads the packages matching patterns (relative to dir, "" for the
// current directory), analyzes them and renders their generated files. Diagnostics come back formatted as
// file:line:col: message, sorted. A File with nil Content is a generated
// file that is no longer needed.
func RunDir(dir string, patterns []string, tags string) ([]File, []string, error) {
	var buildFlags []string
	if tags != "" {
		buildFlags = []string{"-tags=" + tags}
	}
	// Earlier output is replaced by an empty file while loading, so that a
	// stale or broken generated file cannot stop the regeneration.
	listCfg := &packages.Config{
		Dir:        dir,
		Mode:       packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule,
		BuildFlags: buildFlags,
		Tests:      true,
	}
	listed, err := packages.Load(listCfg, patterns...)
	if err != nil {
		return nil, nil, err
	}
	src, err := readMarks(listed)
	if err != nil {
		return nil, nil, err
	}
	overlay := map[string][]byte{}
	old := map[string]bool{}
	for _, p := range listed {
		for _, f := range p.GoFiles {
			if generatedByCogen(f) {
				overlay[f] = []byte("package " + p.Name + "\n")
				old[f] = true
			}
		}
	}
	cfg := &packages.Config{
		Dir:        dir,
		Mode:       packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedTypesSizes | packages.NeedImports,
		BuildFlags: buildFlags,
		Tests:      true,
		Overlay:    overlay,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, nil, err
	}
	// While earlier output is set aside, references to the names it
	// declares are expected errors (in the packages and in those that
	// import them); any other error stops everything.
	var loadErrs []string
	var done []analyzed
	// The names generated files will declare: true for those of the
	// packages analyzed (which they may use unqualified), false for those
	// of the other packages of srcMarks (qualified only).
	names := map[string]bool{}
	for _, marks := range src {
		for key := range marks {
			recv, name, ok := strings.Cut(key, ".")
			if !ok {
				recv, name = "", recv
			}
			frame, ctor := frameNamesOf(recv, name)
			names[frame], names[ctor] = false, false
		}
	}
	var diags []string
	for _, p := range pkgs {
		if p.Types == nil || p.TypesInfo == nil || p.Name == "main" && strings.HasSuffix(p.ID, ".test") {
			continue
		}
		res, ds, err := analyze(p, src)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range res.Funcs {
			names[f.FrameName] = true
			names[f.CtorName] = true
		}
		for _, d := range ds {
			diags = append(diags, fmt.Sprintf("%s: %s", p.Fset.Position(d.Pos), d.Message))
		}
		done = append(done, analyzed{p, res})
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		loadErrs = append(loadErrs, unexpectedErrors(p, done, names)...)
	})
	// A file in both a package and its test variant is generated from the
	// package itself, whatever the order of loading.
	sort.SliceStable(done, func(i, j int) bool {
		return !strings.Contains(done[i].pkg.ID, "[") && strings.Contains(done[j].pkg.ID, "[")
	})
	var files []File
	written := map[string]bool{}
	seenFile := map[string]bool{}
	for _, a := range done {
		if len(loadErrs) > 0 {
			break
		}
		out, err := Generate(a.pkg.Fset, a.pkg.Types, a.res)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range out {
			if seenFile[f.Path] {
				continue // the same file in a package and its test variant
			}
			seenFile[f.Path] = true
			written[f.Path] = true
			files = append(files, f)
		}
	}
	if len(loadErrs) > 0 {
		return nil, nil, fmt.Errorf("cannot load packages:\n\t%s", strings.Join(dedup(loadErrs), "\n\t"))
	}
	for f := range old {
		if !written[f] {
			files = append(files, File{Path: f})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, dedup(diags), nil
}

// analyzedPkg is a loaded package and what Analyzer found in it.
type analyzedPkg struct {
	pkg *packages.Package
	res *Result
}

type analyzed = analyzedPkg

var undefinedRE = regexp.MustCompile(`^undefined: (\w+\.)?(\w+)$`)

// unexpectedErrors returns the errors of a package other than references
// to the names generated files will declare (outside marked functions):
// a package may use its generated frames, which do not exist yet, and
// those of the other packages cogen read the directives of, qualified
// (names[name] is whether it may be unqualified).
//
// The compiler that go list runs stops after 10 errors with a line
// "too many errors": that line is expected when every other error of the
// package is (the ones it did not list are then references to generated
// names too, or real errors that the build after generating reports).
func unexpectedErrors(p *packages.Package, done []analyzed, names map[string]bool) []string {
	var out, tooMany []string
	expectedSome := false
	for _, e := range p.Errors {
		expected := true
		lines := 0
		for _, line := range strings.Split(e.Msg, "\n") {
			if strings.HasPrefix(line, "# ") || line == "" {
				continue
			}
			if strings.HasSuffix(line, ": too many errors") || line == "too many errors" {
				tooMany = append(tooMany, e.Error())
				continue
			}
			lines++
			pos, qual, name := e.Pos, "", ""
			if m := undefinedRE.FindStringSubmatch(line); m != nil {
				qual, name = m[1], m[2]
			} else if m := posUndefinedRE.FindStringSubmatch(line); m != nil {
				pos, qual, name = m[1], m[2], m[3]
			}
			if unqual, ok := names[name]; !ok || !unqual && qual == "" || inMarked(done, pos) {
				expected = false
			}
		}
		switch {
		case !expected:
			out = append(out, e.Error())
		case lines > 0:
			expectedSome = true
		}
	}
	if len(out) > 0 || !expectedSome {
		out = append(out, tooMany...)
	}
	return out
}

var posUndefinedRE = regexp.MustCompile(`^(.*): undefined: (\w+\.)?(\w+)$`)

// inMarked reports whether an error position (file:line:col) is inside a
// marked function.
func inMarked(done []analyzed, pos string) bool {
	file, line, ok := splitPos(pos)
	if !ok {
		return false
	}
	for _, a := range done {
		for _, f := range a.res.Funcs {
			start, end := a.pkg.Fset.Position(f.Decl.Pos()), a.pkg.Fset.Position(f.Decl.End())
			if line >= start.Line && line <= end.Line && (file == start.Filename || strings.HasSuffix(start.Filename, strings.TrimPrefix(file, "."))) {
				return true
			}
		}
	}
	return false
}

var posRE = regexp.MustCompile(`^(.*):(\d+)(?::\d+)?$`)

// splitPos splits file:line[:col].
func splitPos(pos string) (string, int, bool) {
	m := posRE.FindStringSubmatch(pos)
	if m == nil {
		return "", 0, false
	}
	line, _ := strconv.Atoi(m[2])
	return m[1], line, true
}

// analyze runs Analyzer on one loaded package, recognising the marked
// functions of the packages of src by their directives.
func analyze(p *packages.Package, src srcMarks) (*Result, []analysis.Diagnostic, error) {
	var diags []analysis.Diagnostic
	pass := &analysis.Pass{
		Analyzer:   Analyzer,
		Fset:       p.Fset,
		Files:      p.Syntax,
		OtherFiles: p.OtherFiles,
		Pkg:        p.Types,
		TypesInfo:  p.TypesInfo,
		TypesSizes: p.TypesSizes,
		ResultOf:   map[*analysis.Analyzer]any{},
		Report:     func(d analysis.Diagnostic) { diags = append(diags, d) },
		ReadFile:   os.ReadFile,
	}
	res, err := runWith(pass, src)
	if err != nil {
		return nil, nil, err
	}
	return res, diags, nil
}

// readMarks reads the //co:stackless directives of the packages listed
// and of their dependencies that cogen may be regenerating: those of the
// main module (of every module of a workspace) and of modules replaced by
// a local directory. Other modules' packages are recognised by their
// generated frames (see externalCallee).
func readMarks(listed []*packages.Package) (srcMarks, error) {
	src := srcMarks{}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	var err error
	packages.Visit(listed, nil, func(p *packages.Package) {
		m := p.Module
		if err != nil || m == nil || !m.Main && (m.Replace == nil || m.Replace.Version != "") {
			return
		}
		marks := src[p.PkgPath]
		if marks == nil {
			marks = map[string]bool{}
			src[p.PkgPath] = marks
		}
		for _, path := range p.GoFiles {
			if seen[path] {
				continue
			}
			seen[path] = true
			if err = fileMarks(fset, path, marks); err != nil {
				return
			}
		}
	})
	return src, err
}

// fileMarks adds the functions that a source file marks //co:stackless to
// marks (by funcKey: whether durable).
func fileMarks(fset *token.FileSet, path string, marks map[string]bool) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.Contains(text, []byte(directivePrefix+"stackless")) {
		return nil
	}
	f, err := parser.ParseFile(fset, path, text, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil // the type checker reports it, if the package is loaded
	}
	if ast.IsGenerated(f) {
		return nil
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Doc == nil {
			continue
		}
		recv := ""
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			recv = astRecvName(fd.Recv.List[0].Type)
		}
		for _, c := range fd.Doc.List {
			if !strings.HasPrefix(c.Text, directivePrefix) {
				continue
			}
			if name, args := directive(c.Text); name == "stackless" && (args == "" || args == "durable") {
				marks[funcKey(recv, fd.Name.Name)] = args == "durable"
				break
			}
		}
	}
	return nil
}

// astRecvName returns the name of a receiver's type, without pointer or
// type parameters.
func astRecvName(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// generatedByCogen reports whether a file is earlier cogen output.
func generatedByCogen(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 0; i < 5 && sc.Scan(); i++ {
		if sc.Text() == "// Code generated by cogen. DO NOT EDIT." {
			return true
		}
	}
	return false
}

func dedup(list []string) []string {
	sort.Strings(list)
	out := list[:0]
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}
