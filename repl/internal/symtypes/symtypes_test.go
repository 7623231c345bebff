package symtypes_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/builtins"
	"github.com/gnnrepl/gnnrepl/repl/internal/symtypes"
)

// TestImportAll builds every package of the session's tables.
func TestImportAll(t *testing.T) {
	im := symtypes.New(builtins.Symbols)
	for _, p := range im.Paths() {
		if _, err := im.Import(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func check(t *testing.T, im types.Importer, src string) error {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: im}
	_, err = conf.Check("main", fset, []*ast.File{f}, nil)
	return err
}

func TestCheckProgram(t *testing.T) {
	im := symtypes.New(builtins.Symbols)
	src := `package main
import (
	"fmt"
	"go/ast"
	"io"
	"os"
	"strings"
	"time"
	"encoding/json"
	"github.com/gnnrepl/gnnrepl/tensor"
	"github.com/gnnrepl/gnnrepl/nn"
)
type M struct{ nn.Module }
func main() {
	var e ast.Expr = &ast.Ident{Name: "x"}
	_ = e
	var r io.Reader = strings.NewReader("x")
	_, _ = io.Copy(os.Stdout, r)
	d := 2 * time.Second
	fmt.Println(d.Seconds(), time.Now().Sub(time.Now()) < d)
	b, err := json.Marshal(map[string]int{"a": 1})
	fmt.Println(string(b), err)
	x := tensor.Zeros(2, 3)
	fmt.Println(x.Shape())
	var m nn.Module = nn.NewLinear(3, 4, true, nil)
	fmt.Println(len(m.Parameters()))
}
`
	if err := check(t, im, src); err != nil {
		t.Fatal(err)
	}
}

// TestAgainstExportData compares the method sets and struct fields of a
// few standard packages with what the compiler's export data says.
func TestAgainstExportData(t *testing.T) {
	gc := importer.Default()
	im := symtypes.New(builtins.Symbols)
	for _, p := range []string{"strings", "bytes", "time", "bufio", "go/ast", "net/http", "encoding/json"} {
		want, err := gc.Import(p)
		if err != nil {
			t.Skipf("no export data for %s: %v", p, err)
		}
		got, err := im.Import(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range want.Scope().Names() {
			wo := want.Scope().Lookup(name)
			if !wo.Exported() {
				continue
			}
			if _, generic := wo.Type().(*types.Signature); generic && wo.Type().(*types.Signature).TypeParams().Len() > 0 {
				continue
			}
			if n, ok := wo.Type().(*types.Named); ok && n.TypeParams().Len() > 0 {
				continue
			}
			gobj := got.Scope().Lookup(name)
			if gobj == nil {
				continue // yaegi's tables are of Go 1.22
			}
			ws, gs := shape(wo), shape(gobj)
			if strings.Contains(ws, "iter.Seq") {
				continue
			}
			if ws != gs {
				t.Errorf("%s.%s:\n got %s\nwant %s", p, name, gs, ws)
			}
			if tn, ok := wo.(*types.TypeName); ok && !tn.IsAlias() {
				wm := types.NewMethodSet(types.NewPointer(tn.Type()))
				gm := types.NewMethodSet(types.NewPointer(gobj.Type()))
				for i := 0; i < wm.Len(); i++ {
					m := wm.At(i).Obj()
					if !m.Exported() {
						continue
					}
					if gm.Lookup(m.Pkg(), m.Name()) == nil && !strings.Contains(types.ObjectString(m, nil), "iter.Seq") {
						t.Errorf("%s.%s: method %s missing", p, name, m.Name())
					}
				}
			}
		}
	}
}

// shape is a coarse form of an object's type that both importers must
// agree on: a function's parameter and result counts, a type's kind of
// underlying type and field count.
func shape(o types.Object) string {
	switch t := o.Type().Underlying().(type) {
	case *types.Signature:
		return fmt.Sprintf("func %d %d %v", t.Params().Len(), t.Results().Len(), t.Variadic())
	case *types.Struct:
		return fmt.Sprintf("struct %d", t.NumFields())
	case *types.Interface:
		return fmt.Sprintf("interface %d", t.NumMethods())
	default:
		return fmt.Sprintf("%T", t)
	}
}
