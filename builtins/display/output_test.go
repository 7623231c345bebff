package display

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestOutputMethodsMirrorFunctions: the package-level functions that show
// output (those that use the terminal Output) are exactly the methods of
// Output. A session binds each such name to its own Output's method
// (builtins.DisplaySymbols); a function missing from Output would print to
// the process's terminal from a notebook cell.
func TestOutputMethodsMirrorFunctions(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var funcs []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !fd.Name.IsExported() {
				continue
			}
			uses := false
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && id.Name == "terminal" {
					uses = true
				}
				return !uses
			})
			if uses {
				funcs = append(funcs, fd.Name.Name)
			}
		}
	}
	var methods []string
	typ := reflect.TypeFor[*Output]()
	for i := range typ.NumMethod() {
		methods = append(methods, typ.Method(i).Name)
	}
	sort.Strings(funcs)
	sort.Strings(methods)
	if !reflect.DeepEqual(funcs, methods) {
		t.Errorf("package functions on the terminal Output %v, Output's methods %v: they must be the same names", funcs, methods)
	}
}
