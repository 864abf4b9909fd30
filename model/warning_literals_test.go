package model

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// spelledElsewhere are code literals allowed outside the table: path → code.
var spelledElsewhere = map[string]string{
	"output/jsonl.go": "structured_content_dropped", // the tool.result field of the same name
}

// TestWarningCodesSpelledOnce: outside warning_codes.go, no code is spelled
// as a string: a code in the table is used by its constant, and a string in
// the place of a code (a Code field, a comparison with one, an argument of a
// function taking a WarningCode) is a code missing from the table.
func TestWarningCodesSpelledOnce(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	files := parseModule(t, root)
	sinks := codeParams(files)
	known := map[string]bool{}
	for _, w := range WarningCodes {
		known[string(w.Code)] = true
	}
	for path, f := range files {
		if path == "model/warning_codes.go" {
			continue
		}
		for _, lit := range codeLiterals(f, sinks, known) {
			v, _ := strconv.Unquote(lit.Value)
			if spelledElsewhere[path] == v {
				continue
			}
			pos := moduleFset.Position(lit.Pos()).Line
			if known[v] {
				t.Errorf("%s:%d: %q is spelled out: use its constant from model/warning_codes.go", path, pos, v)
			} else {
				t.Errorf("%s:%d: %q is used as a warning code but is not in model.WarningCodes", path, pos, v)
			}
		}
	}
	if len(files) < 50 {
		t.Fatalf("only %d files parsed under %s", len(files), root)
	}
}

var moduleFset = token.NewFileSet()

// parseModule parses the module's Go files but tests (which check codes by
// their strings, as a user of the JSON output would).
func parseModule(t *testing.T, root string) map[string]*ast.File {
	files := map[string]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(moduleFset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// isWarningCodeType says whether a type expression is WarningCode or
// model.WarningCode.
func isWarningCodeType(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "WarningCode"
	case *ast.SelectorExpr:
		return e.Sel.Name == "WarningCode"
	}
	return false
}

// codeParams finds every function, method, closure or func-typed parameter
// with a WarningCode parameter: its name → the argument positions.
func codeParams(files map[string]*ast.File) map[string]map[int]bool {
	sinks := map[string]map[int]bool{}
	record := func(name string, ft *ast.FuncType) {
		i := 0
		for _, p := range ft.Params.List {
			n := max(len(p.Names), 1)
			if isWarningCodeType(p.Type) {
				for k := 0; k < n; k++ {
					if sinks[name] == nil {
						sinks[name] = map[int]bool{}
					}
					sinks[name][i+k] = true
				}
			}
			i += n
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				record(n.Name.Name, n.Type)
			case *ast.AssignStmt:
				for i, r := range n.Rhs {
					if fl, ok := r.(*ast.FuncLit); ok && i < len(n.Lhs) {
						if id, ok := n.Lhs[i].(*ast.Ident); ok {
							record(id.Name, fl.Type)
						}
					}
				}
			case *ast.Field:
				if ft, ok := n.Type.(*ast.FuncType); ok {
					for _, name := range n.Names {
						record(name.Name, ft)
					}
				}
			}
			return true
		})
	}
	return sinks
}

// codeLiterals returns the string literals of f that spell a code: any
// literal equal to a known code (but struct tags and map indexes, which name
// JSON fields), and any literal shaped like a code in the place of one.
func codeLiterals(f *ast.File, sinks map[string]map[int]bool, known map[string]bool) []*ast.BasicLit {
	var out []*ast.BasicLit
	skip := map[*ast.BasicLit]bool{}
	inPlace := map[*ast.BasicLit]bool{}
	str := func(e ast.Expr) *ast.BasicLit {
		if l, ok := e.(*ast.BasicLit); ok && l.Kind == token.STRING {
			return l
		}
		return nil
	}
	isCodeField := func(e ast.Expr) bool {
		s, ok := e.(*ast.SelectorExpr)
		return ok && s.Sel.Name == "Code"
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if n.Tag != nil {
				skip[n.Tag] = true
			}
		case *ast.ImportSpec:
			skip[n.Path] = true
		case *ast.IndexExpr:
			if l := str(n.Index); l != nil {
				skip[l] = true
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Code" {
				if l := str(n.Value); l != nil {
					inPlace[l] = true
				}
			}
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if isCodeField(lhs) && len(n.Rhs) == len(n.Lhs) {
					if l := str(n.Rhs[i]); l != nil {
						inPlace[l] = true
					}
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				if l := str(n.Y); l != nil && isCodeField(n.X) {
					inPlace[l] = true
				}
				if l := str(n.X); l != nil && isCodeField(n.Y) {
					inPlace[l] = true
				}
			}
		case *ast.CallExpr:
			name := ""
			switch fn := n.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			for i, a := range n.Args {
				if l := str(a); l != nil && sinks[name][i] {
					inPlace[l] = true
				}
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		l, ok := n.(*ast.BasicLit)
		if !ok || l.Kind != token.STRING || skip[l] {
			return true
		}
		v, err := strconv.Unquote(l.Value)
		if err != nil {
			return true
		}
		if known[v] || (inPlace[l] && codeForm.MatchString(v)) {
			out = append(out, l)
		}
		return true
	})
	return out
}
