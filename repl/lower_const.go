package repl

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strconv"
)

// Constants are go/types' business, never yaegi's. yaegi v0.16.1 evaluates
// constant expressions itself and gets many wrong: an untyped integer
// division in a float context (var f float64 = 5/2 gave 2.5), iota in a
// group whose specs declare several names or repeat implicitly ("constant
// definition loop"), untyped constants beyond 64 bits ("constant ...
// overflows int64"), typed constant arithmetic, unsafe.Sizeof and
// Offsetof. The front end knows the exact value and type of every
// constant expression, so:
//
//   - each constant declaration gets every spec written out with its exact
//     value (and its type when it has one), so iota and implicit repetition
//     are gone: const ( a = iota * 10; b ) becomes const ( a = 0; b = 10 );
//   - each maximal constant expression elsewhere (an operator on constants,
//     a constant's name, len of an array, unsafe.Sizeof) becomes a literal of
//     its value, converted to its type when the type is not untyped:
//     x := 5 / 2 * c becomes x := 2 * 4 = int(8), and time.Second*2 becomes
//     time.Duration(2000000000).
//
// A value whose type cannot be written in the cell (an unexported type of a
// package) is left as it is.
func (tc *typeCheck) foldConstants(f *ast.File, info *types.Info) {
	inConst := map[ast.Expr]bool{} // the written-out values of constant declarations
	ast.Inspect(f, func(n ast.Node) bool {
		g, ok := n.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			return true
		}
		// A declaration that cannot be written out (a float beyond
		// float64) is left entirely to yaegi, which then sees it whole.
		tc.writeConstDecl(g, info)
		for _, sp := range g.Specs {
			for _, v := range sp.(*ast.ValueSpec).Values {
				ast.Inspect(v, func(n ast.Node) bool {
					if e, ok := n.(ast.Expr); ok {
						inConst[e] = true
					}
					return true
				})
			}
		}
		return false
	})
	rewriteExprs(f, func(e ast.Expr) ast.Expr {
		if inConst[e] {
			return nil
		}
		switch e := e.(type) {
		case *ast.BasicLit:
			return nil
		case *ast.Ident:
			if _, ok := info.Uses[e].(*types.Const); !ok {
				return nil // true, false, a type or variable name
			}
		case *ast.CompositeLit, *ast.FuncLit:
			return nil
		}
		tv, ok := info.Types[e]
		if !ok || tv.Value == nil || tv.IsType() {
			return nil
		}
		out := tc.constExpr(tv.Value, tv.Type, e.Pos(), e.End())
		if out != nil {
			info.Types[out] = tv // for the rewrites that read types later (rangeInts)
		}
		return out
	})
}

// writeConstDecl gives each spec of the const declaration g its values
// written out (typed ones converted to their type); it leaves g as it is
// when a value cannot be written.
func (tc *typeCheck) writeConstDecl(g *ast.GenDecl, info *types.Info) {
	specs := make([]ast.Spec, len(g.Specs))
	for i, sp := range g.Specs {
		vs := sp.(*ast.ValueSpec)
		values := make([]ast.Expr, len(vs.Names))
		for j, id := range vs.Names {
			c, _ := info.Defs[id].(*types.Const)
			switch {
			case c == nil && id.Name == "_":
				values[j] = &ast.BasicLit{ValuePos: id.Pos(), Kind: token.INT, Value: "0"}
				continue
			case c == nil:
				return
			case isUntyped(c.Type()):
				values[j] = untypedLit(c.Val(), c.Type().(*types.Basic), id.Pos(), id.End())
				if values[j] == nil {
					// Beyond float64: yaegi cannot hold it, and needs no
					// value, since every use is folded. A string, so
					// that a use the session did not fold fails to
					// compile instead of computing with a wrong number.
					values[j] = &ast.BasicLit{ValuePos: id.Pos(), Kind: token.STRING,
						Value: strconv.Quote("constant " + id.Name + " is beyond what the interpreter holds; its uses are folded")}
				}
			default:
				values[j] = tc.constExpr(c.Val(), c.Type(), id.Pos(), id.End())
			}
			if values[j] == nil {
				return
			}
		}
		specs[i] = &ast.ValueSpec{Doc: vs.Doc, Names: vs.Names, Type: vs.Type, Values: values, Comment: vs.Comment}
	}
	g.Specs = specs
}

// untypedLit writes an untyped constant as a literal of its kind (a float
// or complex with float64 precision: uses of the constant are folded with
// its exact value, see foldConstants).
func untypedLit(v constant.Value, b *types.Basic, pos, end token.Pos) ast.Expr {
	switch b.Kind() {
	case types.UntypedBool:
		return &ast.Ident{NamePos: pos, Name: strconv.FormatBool(constant.BoolVal(v))}
	case types.UntypedString:
		return &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(constant.StringVal(v))}
	case types.UntypedRune:
		if r, ok := constant.Int64Val(v); ok && r >= 0 && r <= 0x10FFFF {
			return &ast.BasicLit{ValuePos: pos, Kind: token.CHAR, Value: strconv.QuoteRune(rune(r))}
		}
		return nil
	case types.UntypedInt:
		return numberLit(v, types.Typ[types.Int], pos, end)
	case types.UntypedFloat:
		return numberLit(v, types.Typ[types.Float64], pos, end)
	case types.UntypedComplex:
		return numberLit(v, types.Typ[types.Complex128], pos, end)
	}
	return nil
}

func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

// constExpr is the constant value v of type t as an expression: a literal,
// converted to t when t is typed; nil when t cannot be written.
func (tc *typeCheck) constExpr(v constant.Value, t types.Type, pos, end token.Pos) ast.Expr {
	if t == nil || v == nil || v.Kind() == constant.Unknown {
		return nil
	}
	var under *types.Basic
	if b, ok := t.Underlying().(*types.Basic); ok {
		under = b
	} else {
		return nil
	}
	var lit ast.Expr
	switch v.Kind() {
	case constant.Bool:
		lit = &ast.Ident{NamePos: pos, Name: strconv.FormatBool(constant.BoolVal(v))}
		if isUntyped(t) || under.Kind() == types.Bool && t == types.Typ[types.Bool] {
			return lit
		}
	case constant.String:
		lit = &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(constant.StringVal(v))}
		if t == types.Typ[types.String] || t == types.Typ[types.UntypedString] {
			return lit
		}
	case constant.Int, constant.Float, constant.Complex:
		lit = numberLit(v, under, pos, end)
		if lit == nil {
			return nil
		}
		if isUntyped(t) {
			if under.Kind() == types.UntypedInt || under.Kind() == types.UntypedRune {
				return lit
			}
			return nil // an untyped float or complex root: left to yaegi
		}
	default:
		return nil
	}
	te := tc.typeExpr(t, pos)
	if te == nil {
		return nil
	}
	return &ast.CallExpr{Fun: te, Lparen: pos, Args: []ast.Expr{lit}, Rparen: end}
}

// numberLit writes a numeric constant for the basic type b: an integer
// exactly, a float rounded to b's precision (exact for float32 and float64
// types, as Go's conversion rounds), a complex as complex(re, im).
func numberLit(v constant.Value, b *types.Basic, pos, end token.Pos) ast.Expr {
	neg := func(lit *ast.BasicLit, negative bool) ast.Expr {
		if !negative {
			return lit
		}
		return &ast.ParenExpr{Lparen: pos, X: &ast.UnaryExpr{OpPos: pos, Op: token.SUB, X: lit}, Rparen: end}
	}
	info := b.Info()
	switch {
	case info&types.IsInteger != 0:
		iv := constant.ToInt(v)
		if iv.Kind() != constant.Int {
			return nil
		}
		if constant.Sign(iv) < 0 {
			return neg(&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: constant.UnaryOp(token.SUB, iv, 0).ExactString()}, true)
		}
		return &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: iv.ExactString()}
	case info&types.IsFloat != 0:
		bits := 64
		if b.Kind() == types.Float32 {
			bits = 32
		}
		fv := constant.ToFloat(v)
		if fv.Kind() != constant.Float && fv.Kind() != constant.Int {
			return nil
		}
		var x float64
		if bits == 32 {
			f32, _ := constant.Float32Val(fv)
			x = float64(f32)
		} else {
			x, _ = constant.Float64Val(fv)
		}
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		s := strconv.FormatFloat(abs(x), 'g', -1, bits)
		if !containsAny(s, ".eE") {
			s += ".0"
		}
		return neg(&ast.BasicLit{ValuePos: pos, Kind: token.FLOAT, Value: s}, x < 0 || x == 0 && constant.Sign(fv) < 0)
	case info&types.IsComplex != 0:
		bt := types.Typ[types.Float64]
		if b.Kind() == types.Complex64 {
			bt = types.Typ[types.Float32]
		}
		re := numberLit(constant.Real(v), bt, pos, end)
		im := numberLit(constant.Imag(v), bt, pos, end)
		if re == nil || im == nil {
			return nil
		}
		return &ast.CallExpr{Fun: &ast.Ident{NamePos: pos, Name: "complex"}, Lparen: pos, Args: []ast.Expr{re, im}, Rparen: end}
	}
	return nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func containsAny(s, chars string) bool {
	for _, c := range chars {
		for _, d := range s {
			if c == d {
				return true
			}
		}
	}
	return false
}
