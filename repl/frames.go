package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// hint explains the interpreter limitations users hit most.
func hint(r any, src string) string {
	msg := fmt.Sprint(r)
	if strings.Contains(msg, "nil type") && strings.Contains(src, "range") {
		return "yaegi v0.16.1 cannot range over a function (Go 1.23) nor over an integer whose type the session cannot tell, " +
			"such as a local variable's namesake or an iterator over a struct type of yours (call the iterator with a yield function, " +
			"`seq(func(v T) bool { ...; return true })`, or write `for i := 0; i < n; i++`)"
	}
	return ""
}

// yaegi v0.16.1 prints, for every interpreted frame a panic unwinds, the
// position of the frame's first statement, not of the statement that was
// running. The session therefore marks the top-level statements of a cell
// (and of a file's main function) so that the outermost frame names the
// statement that panicked:
//
//	_gnnreplrt.At(line<<20 | column); statement
//
// Statements inside functions and loops are not marked (a call per
// statement would slow interpreted loops), so the other frames keep
// yaegi's positions, and fixFrames says so.

// atStmt is the session runtime's At.
func (s *Session) atStmt(pos int64) { s.at.Store(pos) }

// markStmts returns list with an At call before each statement.
func markStmts(fset *token.FileSet, list []ast.Stmt) []ast.Stmt {
	out := make([]ast.Stmt, 0, 2*len(list))
	for _, st := range list {
		p := fset.Position(st.Pos())
		if p.Line > 0 {
			pos := st.Pos()
			at := &ast.CallExpr{
				Fun:    &ast.SelectorExpr{X: &ast.Ident{NamePos: pos, Name: rtName}, Sel: &ast.Ident{NamePos: pos, Name: "At"}},
				Lparen: pos, Rparen: pos,
				Args: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.FormatInt(int64(p.Line)<<20|int64(p.Column&(1<<20-1)), 10)}},
			}
			out = append(out, &ast.ExprStmt{X: at})
		}
		out = append(out, st)
	}
	return out
}

var framePos = regexp.MustCompile(`^(.*):(\d+):(\d+): (main(?:\.main)?\(\.\.\.\))$`)

// fixFrames puts the position of the running top-level statement (at,
// from markStmts) on the outermost frame of a panic's stack, and notes
// that the positions of function frames are where those functions start.
func fixFrames(frames []string, at int64) []string {
	if len(frames) == 0 {
		return frames
	}
	out := append([]string(nil), frames...)
	last := len(out) - 1
	if m := framePos.FindStringSubmatch(out[last]); m != nil && at > 0 {
		out[last] = fmt.Sprintf("%s:%d:%d: %s", m[1], at>>20, at&(1<<20-1), m[4])
	}
	if len(out) > 1 {
		out = append(out, "(the line of a function frame is its first statement: the interpreter does not record the line inside it)")
	}
	return out
}

// nilHint explains a nil pointer dereference, which yaegi reports as a
// reflect error when a field is read through a nil pointer.
func nilHint(v any, goStack []byte) string {
	msg := fmt.Sprint(v)
	if strings.Contains(msg, "reflect.Value.Field on zero Value") || strings.Contains(msg, "nil pointer dereference") {
		where := ""
		if f := engineEntry(goStack); f != "" {
			where = " inside " + f + " (is one of its arguments nil?)"
		}
		return "a nil pointer was dereferenced" + where + "; if it came from a call that also returns an error (ds, err := ...), that error says why it is nil"
	}
	return ""
}

// engineEntry returns the gnnrepl function the interpreted code called
// that was running when a runtime panic struck, from the panic's Go stack
// (debug.Stack): the outermost engine frame above the fault, e.g.
// "tensor.AddMM", or "" when the fault was not in the engine.
func engineEntry(stack []byte) string {
	const mod = "github.com/gnnrepl/gnnrepl/"
	lines := strings.Split(string(stack), "\n")
	fault := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "runtime.sigpanic(") || strings.HasPrefix(l, "panic(") {
			fault = i
		}
	}
	if fault < 0 {
		return ""
	}
	entry := ""
	for _, l := range lines[fault+1:] {
		if strings.HasPrefix(l, "\t") || l == "" {
			continue
		}
		if !strings.HasPrefix(l, mod) || strings.HasPrefix(l, mod+"repl") || strings.HasPrefix(l, mod+"builtins") {
			break
		}
		name := strings.TrimPrefix(l, mod)
		if i := strings.LastIndex(name, "("); i > 0 {
			name = name[:i]
		}
		if i := strings.Index(name, ".func"); i > 0 {
			name = name[:i]
		}
		entry = name
	}
	return entry
}
