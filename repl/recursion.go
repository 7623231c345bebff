package repl

import (
	"fmt"
	"go/ast"
	"go/types"
	"runtime"
	"sync"
	"sync/atomic"
)

// Recursion limit. A cell's unbounded recursion used to grow the Go stack
// of the interpreter to its 1 GB limit, where the Go runtime ends the
// process ("goroutine stack exceeds 1000000000-byte limit", not a
// recoverable panic): the shell or the Jupyter kernel died with every
// variable. The session therefore counts interpreted frames, as Python's
// RecursionError does.
//
// enterCalls puts _gnnreplrt.Enter() at the start of every function and
// function literal a cell declares. Enter is one compiled call (measured:
// interpreted fib(27) takes about 1.3x as long; an interpreted counter
// instead cost 2x); every 1024th call of it (counted over the session) it
// looks at the calling goroutine's stack: each interpreted call is one frame of yaegi's runCfg, so when more
// than the limit of them are on the stack, Enter panics with a
// *RecursionError, which the cell reports. In a goroutine the cell started,
// a deferred recover may catch it; the cell's own goroutine ends at once
// (see enter). A recursion is thus stopped within 1024 calls past the limit,
// and code that does not recurse deeply pays one call per interpreted call
// plus, every 1024 calls, a walk of its (shallow) stack.

// DefaultRecursionLimit is the number of interpreted frames a goroutine
// may hold (Options.RecursionLimit, :recursion).
const DefaultRecursionLimit = 10000

// RecursionError is the panic value of a call deeper than the session's
// recursion limit.
type RecursionError struct {
	Limit int // the limit in force
	Depth int // the interpreted frames on the stack when it was found
}

func (e *RecursionError) Error() string {
	return fmt.Sprintf("maximum recursion depth exceeded: %d interpreted calls on the stack, limit %d "+
		"(RecursionError; :recursion N or Options.RecursionLimit changes the limit)", e.Depth, e.Limit)
}

// recursionGuard is one session's frame counter.
type recursionGuard struct {
	limit atomic.Int64
	calls atomic.Uint64
	main  *atomic.Uint64 // the id of the goroutine running the cell (traceWriter.main)
}

// runCfg is yaegi's function that runs the body of one interpreted call.
const runCfgName = "github.com/traefik/yaegi/interp.runCfg"

var (
	isRunCfg  sync.Map // pc -> bool
	stackBufs = sync.Pool{New: func() any { b := make([]uintptr, 4096); return &b }}
)

// enter is the session runtime's Enter.
func (g *recursionGuard) enter() {
	if g.calls.Add(1)&1023 != 0 {
		return
	}
	limit := int(g.limit.Load())
	if limit <= 0 {
		return
	}
	bp := stackBufs.Get().(*[]uintptr)
	defer stackBufs.Put(bp)
	buf := *bp
	skip := 2
	depth := 0
	for {
		n := runtime.Callers(skip, buf)
		for _, pc := range buf[:n] {
			v, ok := isRunCfg.Load(pc)
			if !ok {
				f := runtime.FuncForPC(pc - 1)
				v = f != nil && f.Name() == runCfgName
				isRunCfg.Store(pc, v)
			}
			if v.(bool) {
				depth++
			}
		}
		if n < len(buf) {
			break
		}
		skip += n
	}
	if depth > limit {
		err := &RecursionError{Limit: limit, Depth: depth}
		if g.main != nil && goid() == g.main.Load() {
			// The cell's own goroutine ends with runtime.Goexit: a panic
			// would cost time quadratic in the depth, since each of
			// yaegi's frames recovers and panics again (40 s at 10,000
			// frames); Goexit runs the deferred calls once, frame by
			// frame. start (run.go) reports err as the cell's panic.
			goexits.Store(goid(), err)
			runtime.Goexit()
		}
		panic(err)
	}
}

// goexits holds the RecursionError of a cell goroutine that Enter ended,
// by goroutine id, for start to report.
var goexits sync.Map

// enterCalls puts the Enter call at the start of the functions under root
// that may recurse: recursion needs a cycle of calls, so a function
// declaration is counted when it is on a cycle of the unit's static call
// graph (methods called through an interface count as calls of every
// method of that name the unit declares), and a function declaration or
// literal is counted when it calls a function value (a variable, a field, a
// parameter: it may call itself). The other functions cost nothing.
func enterCalls(root ast.Node, info *types.Info) {
	decls := map[*types.Func]*ast.FuncDecl{}
	byName := map[string][]*types.Func{}
	ast.Inspect(root, func(n ast.Node) bool {
		if fd, ok := n.(*ast.FuncDecl); ok && fd.Body != nil {
			if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
				decls[fn] = fd
				byName[fn.Name()] = append(byName[fn.Name()], fn)
			}
		}
		return true
	})
	guard := map[*ast.BlockStmt]bool{}
	edges := map[*types.Func][]*types.Func{}
	// calls walks body (not into nested literals) and reports whether it
	// calls a function value; it records the static calls of fn.
	var calls func(body ast.Node, fn *types.Func) bool
	calls = func(body ast.Node, fn *types.Func) bool {
		dynamic := false
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				if calls(n.Body, fn) {
					guard[n.Body] = true
				}
				return false
			case *ast.CallExpr:
				fun := ast.Unparen(n.Fun)
				if ix, ok := fun.(*ast.IndexExpr); ok {
					fun = ix.X // an instantiation
				} else if ix, ok := fun.(*ast.IndexListExpr); ok {
					fun = ix.X
				}
				if tv, ok := info.Types[fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
					return true
				}
				var callee types.Object
				switch f := fun.(type) {
				case *ast.Ident:
					callee = info.Uses[f]
				case *ast.SelectorExpr:
					if sel := info.Selections[f]; sel != nil {
						callee = sel.Obj()
						if m, ok := callee.(*types.Func); ok && types.IsInterface(sel.Recv()) {
							for _, impl := range byName[m.Name()] {
								edges[fn] = append(edges[fn], impl)
							}
							return true
						}
					} else {
						callee = info.Uses[f.Sel]
					}
				case *ast.FuncLit:
					return true
				}
				switch c := callee.(type) {
				case *types.Func:
					if fn != nil {
						edges[fn] = append(edges[fn], c)
					}
				case nil:
					dynamic = true // a call of a call's result, an index, ...
				default:
					dynamic = true // a variable, field or parameter of func type
				}
			}
			return true
		})
		return dynamic
	}
	for fn, fd := range decls {
		if calls(fd.Body, fn) {
			guard[fd.Body] = true
		}
	}
	// Functions on cycles (or reaching one: a recursion they start is
	// counted by the cycle's functions; only the cycle needs a guard).
	for fn, fd := range decls {
		seen := map[*types.Func]bool{}
		var reaches func(f *types.Func) bool
		reaches = func(f *types.Func) bool {
			for _, g := range edges[f] {
				if g == fn {
					return true
				}
				if !seen[g] {
					seen[g] = true
					if reaches(g) {
						return true
					}
				}
			}
			return false
		}
		if reaches(fn) {
			guard[fd.Body] = true
		}
	}
	for body := range guard {
		// At the first statement's position: yaegi names a function frame
		// by its first statement.
		pos := body.Lbrace
		if len(body.List) > 0 {
			pos = body.List[0].Pos()
		}
		call := &ast.ExprStmt{X: &ast.CallExpr{
			Fun:    &ast.SelectorExpr{X: &ast.Ident{NamePos: pos, Name: rtName}, Sel: &ast.Ident{NamePos: pos, Name: "Enter"}},
			Lparen: pos, Rparen: pos,
		}}
		body.List = append([]ast.Stmt{call}, body.List...)
	}
}

// SetRecursionLimit sets the number of interpreted calls a goroutine of the
// session may have on its stack (n <= 0: no limit) and returns the previous
// limit. It may be called while a cell runs.
func (s *Session) SetRecursionLimit(n int) int {
	if n <= 0 {
		n = -1
	}
	return int(s.frames.limit.Swap(int64(n)))
}
