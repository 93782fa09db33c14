// Command go_scip writes a SCIP index of the Go packages under a folder, from Go's own type
// checker (go/types), as the reference for scripts/accuracy.sh's Go corpora: no Go SCIP indexer
// can be fetched here, and the type checker is the ground truth such an indexer reports.
//
// Usage (GOPATH mode, standard library only):
//
//	GO111MODULE=off go run go_scip.go -root DIR -importpath PATH [-version V] -output FILE
//
// Every package under DIR (its import path PATH plus the folder) is type-checked, leaving out
// _test.go files, testdata and folders named with a leading `.` or `_`, and files the build
// constraints exclude. Packages of the corpus are checked once, sharing one types.Info; other
// imports (the standard library, GOPATH) are type-checked from source.
//
// The index has, per Go file (paths relative to DIR, byte columns):
//   - a definition of each function and method (symbol, the range of its name, and the range of
//     its whole declaration as the enclosing range), and of each method of a named interface
//     type (no enclosing range: it has no body);
//   - a reference at every identifier that denotes a function or method of the corpus
//     (types.Info.Uses → *types.Func): calls, method values, method expressions, promoted
//     methods of embedded fields (the embedded type's method), calls through an interface (the
//     interface's method). A generic function or method is its declaration (Func.Origin).
//
// Symbols follow scip-go's shape: "scip-go gomod MODULE VERSION `pkg/path`/F()." for a function
// and "scip-go gomod MODULE VERSION `pkg/path`/T#M()." for a method of T (or of interface T).
// Functions and types local to a function body, and methods of unnamed interface types, are
// left out.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

func main() {
	root := flag.String("root", "", "folder holding the packages to index")
	importPath := flag.String("importpath", "", "import path of the root folder")
	version := flag.String("version", "0", "version written into the symbols")
	output := flag.String("output", "", "SCIP index to write")
	flag.Parse()
	if *root == "" || *importPath == "" || *output == "" {
		fmt.Fprintln(os.Stderr, "usage: go_scip -root DIR -importpath PATH [-version V] -output FILE")
		os.Exit(2)
	}
	abs, err := filepath.Abs(*root)
	if err != nil {
		fail(err)
	}
	l, err := newLoader(abs, *importPath)
	if err != nil {
		fail(err)
	}
	paths := make([]string, 0, len(l.dirs))
	for path := range l.dirs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		if _, err := l.check(path); err != nil {
			fail(err)
		}
	}
	index := l.index(*importPath, *version)
	if err := os.WriteFile(*output, index, 0o644); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "go_scip: %d packages, %d files, %d definitions, %d references, %d type errors\n",
		len(l.pkgs), l.stats.files, l.stats.definitions, l.stats.references, l.errors)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "go_scip:", err)
	os.Exit(1)
}

// loader type-checks the corpus's packages on demand, as their importers ask for them.
type loader struct {
	root   string
	fset   *token.FileSet
	dirs   map[string]*build.Package // import path → the package's files
	pkgs   map[string]*types.Package
	files  map[string][]*ast.File
	info   *types.Info
	others types.ImporterFrom
	errors int
	stats  struct{ files, definitions, references int }
}

func newLoader(root, importPath string) (*loader, error) {
	fset := token.NewFileSet()
	others, ok := importer.ForCompiler(fset, "source", nil).(types.ImporterFrom)
	if !ok {
		return nil, fmt.Errorf("the source importer cannot import from a folder")
	}
	l := &loader{
		root:   root,
		fset:   fset,
		dirs:   map[string]*build.Package{},
		pkgs:   map[string]*types.Package{},
		files:  map[string][]*ast.File{},
		info:   &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}},
		others: others,
	}
	ctx := build.Default
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if dir != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		pkg, err := ctx.ImportDir(dir, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return fmt.Errorf("%s: %w", dir, err)
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return err
		}
		path := importPath
		if rel != "." {
			path += "/" + filepath.ToSlash(rel)
		}
		l.dirs[path] = pkg
		return nil
	})
	return l, err
}

func (l *loader) Import(path string) (*types.Package, error) {
	return l.ImportFrom(path, l.root, 0)
}

func (l *loader) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if _, ours := l.dirs[path]; ours {
		return l.check(path)
	}
	return l.others.ImportFrom(path, dir, mode)
}

// check type-checks one package of the corpus, once; type errors are counted, not fatal.
func (l *loader) check(path string) (*types.Package, error) {
	if pkg, done := l.pkgs[path]; done {
		return pkg, nil
	}
	bp := l.dirs[path]
	var files []*ast.File
	for _, name := range bp.GoFiles {
		file, err := parser.ParseFile(l.fset, filepath.Join(bp.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	conf := types.Config{
		Importer: l,
		Error: func(err error) {
			l.errors++
			if l.errors <= 10 {
				fmt.Fprintln(os.Stderr, "go_scip: type error:", err)
			}
		},
	}
	pkg, _ := conf.Check(path, l.fset, files, l.info)
	l.pkgs[path] = pkg
	l.files[path] = files
	return pkg, nil
}

// symbols names the corpus's functions and methods as scip-go does.
type symbols struct {
	prefix string // "scip-go gomod MODULE VERSION "
	pkgs   map[string]*types.Package
}

// of returns the symbol of a function or method of the corpus, or "" for anything else.
func (s symbols) of(fn *types.Func) string {
	fn = fn.Origin()
	pkg := fn.Pkg()
	if pkg == nil || s.pkgs[pkg.Path()] != pkg {
		return ""
	}
	namespace := s.prefix + escape(pkg.Path()) + "/"
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return ""
	}
	recv := sig.Recv()
	if recv == nil {
		if fn.Parent() != pkg.Scope() {
			return ""
		}
		return namespace + escape(fn.Name()) + "()."
	}
	t := recv.Type()
	if ptr, isPtr := t.(*types.Pointer); isPtr {
		t = ptr.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Parent() != pkg.Scope() {
		return ""
	}
	return namespace + escape(named.Obj().Name()) + "#" + escape(fn.Name()) + "()."
}

// escape writes a SCIP descriptor name, in backticks unless it is a simple identifier.
func escape(name string) string {
	for _, c := range name {
		if !(c == '_' || c == '+' || c == '-' || c == '$' || c < 128 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')) {
			return "`" + strings.ReplaceAll(name, "`", "``") + "`"
		}
	}
	return name
}

// occurrence is one SCIP occurrence: a 0-based (line, byte column) range, maybe an enclosing one.
type occurrence struct {
	symbol     string
	definition bool
	rng        []int
	enclosing  []int
}

func (l *loader) span(from, to token.Pos) []int {
	a, b := l.fset.Position(from), l.fset.Position(to)
	if a.Line == b.Line {
		return []int{a.Line - 1, a.Column - 1, b.Column - 1}
	}
	return []int{a.Line - 1, a.Column - 1, b.Line - 1, b.Column - 1}
}

// index encodes the SCIP index of every checked package of the corpus.
func (l *loader) index(importPath, version string) []byte {
	syms := symbols{prefix: "scip-go gomod " + escapePackageField(importPath) + " " + escapePackageField(version) + " ", pkgs: l.pkgs}
	var out pb
	var meta, tool pb
	tool.str(1, "go_scip")
	tool.str(2, runtime.Version())
	meta.bytes(2, tool.b)
	meta.str(3, "file://"+filepath.ToSlash(l.root))
	meta.int(4, 1) // UTF8
	out.bytes(1, meta.b)
	var paths []string
	for path := range l.files {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		for _, file := range l.files[path] {
			out.bytes(2, l.document(file, syms))
		}
	}
	return out.b
}

// document encodes one file's occurrences.
func (l *loader) document(file *ast.File, syms symbols) []byte {
	name := l.fset.Position(file.Pos()).Filename
	rel, err := filepath.Rel(l.root, name)
	if err != nil {
		rel = name
	}
	l.stats.files++
	bodies := map[*ast.Ident]*ast.FuncDecl{}
	var occs []occurrence
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			bodies[n.Name] = n
		case *ast.Ident:
			obj := l.info.Defs[n]
			definition := obj != nil
			if !definition {
				obj = l.info.Uses[n]
			}
			fn, ok := obj.(*types.Func)
			if !ok {
				return true
			}
			symbol := syms.of(fn)
			if symbol == "" {
				return true
			}
			occ := occurrence{symbol: symbol, definition: definition, rng: l.span(n.Pos(), n.End())}
			if definition {
				l.stats.definitions++
				if decl, ok := bodies[n]; ok {
					occ.enclosing = l.span(decl.Pos(), decl.End())
				}
			} else {
				l.stats.references++
			}
			occs = append(occs, occ)
		}
		return true
	})
	var doc pb
	doc.str(1, filepath.ToSlash(rel))
	for _, occ := range occs {
		var o pb
		o.packed(1, occ.rng)
		o.str(2, occ.symbol)
		if occ.definition {
			o.int(3, 1)
		}
		if occ.enclosing != nil {
			o.packed(7, occ.enclosing)
		}
		doc.bytes(2, o.b)
	}
	doc.str(4, "go")
	doc.int(6, 1) // UTF8 code units (bytes) from the line's start
	return doc.b
}

// escapePackageField doubles spaces, as SCIP's package manager, name and version fields need.
func escapePackageField(s string) string {
	return strings.ReplaceAll(s, " ", "  ")
}

// pb is a minimal protocol buffers writer: varints, and length-delimited strings, messages and
// packed integers (all the SCIP fields written here).
type pb struct{ b []byte }

func (p *pb) varint(v uint64) {
	for v >= 0x80 {
		p.b = append(p.b, byte(v)|0x80)
		v >>= 7
	}
	p.b = append(p.b, byte(v))
}

func (p *pb) tag(field, wire int) { p.varint(uint64(field<<3 | wire)) }

func (p *pb) bytes(field int, data []byte) {
	p.tag(field, 2)
	p.varint(uint64(len(data)))
	p.b = append(p.b, data...)
}

func (p *pb) str(field int, s string) { p.bytes(field, []byte(s)) }

// int writes a non-negative integer field, left out when 0 as proto3 does.
func (p *pb) int(field, v int) {
	if v != 0 {
		p.tag(field, 0)
		p.varint(uint64(v))
	}
}

func (p *pb) packed(field int, values []int) {
	var q pb
	for _, v := range values {
		q.varint(uint64(v))
	}
	p.bytes(field, q.b)
}
