package repl

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
)

// Lowering passes: each rewrites one construct that yaegi v0.16.1 runs
// wrongly, with no error, into an equivalent one that it runs right. They
// run after the type check (check.go), in the order of the table, and read
// its exact types; none guesses from run-time values. Each cites its
// upstream issue or a minimal reproducer, and has a conformance program
// (testdata/conformance/lower_*.go) checked against go run.
type lowering struct {
	name string
	// doc says what yaegi gets wrong and how the pass rewrites it.
	doc string
	run func(tc *typeCheck, fset *token.FileSet, f *ast.File, info *types.Info, stmts bool) error
}

var lowerings = []lowering{
	{"constants", "constant declarations are written out value by value and every other constant expression " +
		"becomes a literal of its exact value and type: yaegi computed 5/2 in a float context as 2.5, failed on iota " +
		"groups (\"constant definition loop\") and on constants beyond 64 bits (lower_const.go; " +
		"testdata/conformance/lower_constfold.go)", tcPass((*typeCheck).foldConstants)},
	{"switchinit", "switch x := v; expr {...} becomes { x := v; switch expr {...} }: yaegi matched no case " +
		"when the tag is computed from the init's variable (switch x := 5; x*2 { case 10: } ran default) " +
		"(testdata/conformance/lower_switchinit.go)", pass(switchInits)},
	{"jsontags", "an unexported field of a struct type a cell declares gets the tag `json:\"-\"` when it has " +
		"no json tag: yaegi's struct types export every field (score becomes Xscore), so encoding/json " +
		"wrote unexported fields (testdata/conformance/lower_jsontags.go)", pass(hideUnexported)},
	{"selectcontinue", "a continue that ends a select clause becomes a flag and the continue after the select: " +
		"yaegi left the loop (lower_select.go; TestSelectContinue)", pass(selectContinues)},
	{"ifacevalues", "a value of a cell's type given to a compiled struct literal's interface field, or a call's " +
		"result of such a type passed straight to an interface parameter, is bound to a variable first: yaegi wraps " +
		"only variables (checkpoint.State{Model: m} panicked in reflect.Set; fmt.Println(mk()) ignored String) " +
		"(lower_iface.go; TestUserModelStateLiteral, TestInterfaceArguments)", pass(wrapIfaceValues)},
	{"methodvalue", "a method value of a value receiver copies the receiver: yaegi bound the variable (g := p.Get; " +
		"p.n = 2 changed g()) (lower_method.go; testdata/conformance/lower_methodvalue.go)", tcPass((*typeCheck).bindMethodValues)},
	{"typeargs", "a call of a generic function a cell declares gets the type arguments go/types inferred: yaegi " +
		"failed to infer one from a function literal argument (lower_generic.go; " +
		"testdata/conformance/generic_user_func.go)", tcPass((*typeCheck).explicitTypeArgs)},
	{"definevars", "a top-level define of a statement cell is declared with var and its exact types, then assigned: " +
		"yaegi lost a tuple define's variables for functions called from functions or loops, and failed on an index " +
		"of a compiled slice or a comma-ok define (lower_define.go; TestTopLevelTupleDefineInFunctions)",
		func(tc *typeCheck, fset *token.FileSet, f *ast.File, info *types.Info, stmts bool) error {
			if !stmts {
				return nil
			}
			return tc.defineVars(fset, f, info)
		}},
	{"recursion", "every function a cell declares that may recurse calls _gnnreplrt.Enter first, which stops a recursion deeper " +
		"than the session's limit with a RecursionError: the interpreter's Go stack grew to 1 GB and the runtime " +
		"ended the process, kernel and all (recursion.go; TestRecursionLimit)", pass(func(f *ast.File, info *types.Info, _ bool) { enterCalls(f, info) })},
	{"cellreturn", "a return at a statement cell's top level ends the cell (a script's, the script): yaegi's " +
		"compiler panicked (\"CFG post-order panic\"); it becomes a panic with a sentinel that the session takes " +
		"as the end of the cell (TestCellReturn)", pass(cellReturns)},
}

// tcPass adapts a pass that needs the session's checker too.
func tcPass(p func(tc *typeCheck, f *ast.File, info *types.Info)) func(*typeCheck, *token.FileSet, *ast.File, *types.Info, bool) error {
	return func(tc *typeCheck, _ *token.FileSet, f *ast.File, info *types.Info, _ bool) error {
		p(tc, f, info)
		return nil
	}
}

// pass adapts a pass that needs only the unit and its types.
func pass(p func(f *ast.File, info *types.Info, stmts bool)) func(*typeCheck, *token.FileSet, *ast.File, *types.Info, bool) error {
	return func(_ *typeCheck, _ *token.FileSet, f *ast.File, info *types.Info, stmts bool) error {
		p(f, info, stmts)
		return nil
	}
}

// cellReturn is the value a cell's top-level return panics with
// (cellReturns): the session ends the cell there, as a success.
var cellReturn = &struct{ name string }{"return at a cell's top level"}

// cellReturns rewrites each return statement of a statement unit's
// top level (in its blocks, not in function literals) into
// panic(_gnnreplrt.Return): yaegi's compiler failed on it ("CFG post-order
// panic"); a return ends the cell, and in a script (gnnrepl run) the
// script, as in a Go main.
func cellReturns(f *ast.File, _ *types.Info, stmts bool) {
	if !stmts || len(f.Decls) != 1 {
		return
	}
	fd, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok || fd.Name.Name != "main" || fd.Body == nil || fd.Recv != nil {
		return
	}
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt:
			returnsIn(n.List)
		case *ast.CaseClause:
			returnsIn(n.Body)
		case *ast.CommClause:
			returnsIn(n.Body)
		case *ast.LabeledStmt:
			if r, ok := n.Stmt.(*ast.ReturnStmt); ok {
				n.Stmt = returnPanic(r)
			}
		case *ast.IfStmt:
			if r, ok := n.Else.(*ast.ReturnStmt); ok {
				n.Else = returnPanic(r)
			}
		}
		return true
	}
	ast.Inspect(fd.Body, walk)
}

func returnsIn(stmts []ast.Stmt) {
	for i, st := range stmts {
		if r, ok := st.(*ast.ReturnStmt); ok && len(r.Results) == 0 {
			stmts[i] = returnPanic(r)
		}
	}
}

func returnPanic(r *ast.ReturnStmt) ast.Stmt {
	pos := r.Pos()
	return &ast.ExprStmt{X: &ast.CallExpr{
		Fun:    &ast.Ident{NamePos: pos, Name: "panic"},
		Lparen: pos,
		Args:   []ast.Expr{&ast.SelectorExpr{X: &ast.Ident{NamePos: pos, Name: rtName}, Sel: &ast.Ident{NamePos: pos, Name: "Return"}}},
		Rparen: pos,
	}}
}

// lower applies the lowering passes to the unit f, checked as c (nil for
// the session's own cells); stmts tells a statement unit.
func (s *Session) lower(f *ast.File, c *checked, stmts bool) error {
	if c == nil {
		return nil
	}
	for _, l := range lowerings {
		if err := l.run(s.tc, s.in.FileSet(), f, c.info, stmts); err != nil {
			return err
		}
	}
	return nil
}

// rewriteExprs replaces, bottom-up, each expression under root for which
// repl returns a non-nil expression (replaceExprs, keeping the others).
func rewriteExprs(root ast.Node, repl func(ast.Expr) ast.Expr) {
	replaceExprs(root, func(e ast.Expr) ast.Expr {
		if r := repl(e); r != nil {
			return r
		}
		return e
	})
}

// switchInits moves the init statement of an expression switch with a tag
// into a block around it. (Type switches and tagless switches run right.)
func switchInits(f *ast.File, _ *types.Info, _ bool) {
	rewriteStmts(f, func(st ast.Stmt) ast.Stmt {
		sw, ok := st.(*ast.SwitchStmt)
		if !ok || sw.Init == nil || sw.Tag == nil {
			return nil
		}
		init := sw.Init
		sw.Init = nil
		return &ast.BlockStmt{Lbrace: sw.Pos(), List: []ast.Stmt{init, sw}, Rbrace: sw.End()}
	})
}

// rewriteStmts replaces, in every statement list, each statement for which
// repl returns a non-nil statement (after rewriting inside it).
func rewriteStmts(root ast.Node, repl func(ast.Stmt) ast.Stmt) {
	ast.Inspect(root, func(n ast.Node) bool {
		var list *[]ast.Stmt
		switch n := n.(type) {
		case *ast.BlockStmt:
			list = &n.List
		case *ast.CaseClause:
			list = &n.Body
		case *ast.CommClause:
			list = &n.Body
		default:
			return true
		}
		for i, st := range *list {
			if r := repl(st); r != nil {
				(*list)[i] = r
			}
		}
		return true
	})
}

// hideUnexported tags the unexported fields of the named struct types that
// f declares `json:"-"` when they have no json tag (see lowerings). Struct
// type literals elsewhere are left alone: Go's type identity includes tags,
// and yaegi builds some of them apart from the cell's text (Go's test
// programs bug285.go and typeparam/sets.go failed when they were tagged).
func hideUnexported(f *ast.File, _ *types.Info, _ bool) {
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.TypeParams != nil {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok || st.Fields == nil {
			return true
		}
		for _, fld := range st.Fields.List {
			if len(fld.Names) == 0 {
				continue // an embedded field: yaegi keeps its name
			}
			exported := false
			for _, nm := range fld.Names {
				exported = exported || nm.IsExported()
			}
			if exported {
				continue
			}
			tag := ""
			if fld.Tag != nil {
				tag, _ = strconv.Unquote(fld.Tag.Value)
			}
			if _, has := reflect.StructTag(tag).Lookup("json"); has {
				continue
			}
			if tag != "" {
				tag += " "
			}
			tag += `json:"-"`
			pos := fld.Type.End()
			if fld.Tag != nil {
				pos = fld.Tag.Pos()
			}
			fld.Tag = &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(tag)}
		}
		return true
	})
}
