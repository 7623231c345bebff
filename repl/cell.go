package repl

import (
	"go/scanner"
	"go/token"
)

// A cell (what the user typed, or a script) is evaluated in units, because
// yaegi evaluates a chunk of source either as declarations (it prepends a
// package clause) or as statements (it wraps them in a function body), never
// both: `var m = 1; m` or `import "fmt"` followed by statements fail as one
// chunk. splitCell cuts the cell at the top-level statement boundaries (the
// semicolons, explicit or automatic, at bracket depth 0), classifies each
// piece by its first tokens, and merges consecutive pieces of the same kind,
// so declarations that refer to each other compile together.

type unitKind int

const (
	unitStmts unitKind = iota // statements, run in the session's main scope
	unitDecls                 // imports, func, type, var and const declarations
	unitFile                  // a whole Go file with a package clause
)

// unit is src[start:end], of one kind.
type unit struct {
	kind       unitKind
	start, end int
	nonImport  bool // a unitDecls holding something other than imports
}

type tok struct {
	t   token.Token
	off int
}

// splitCell splits src into units. Only scanner errors (an unterminated
// string, an illegal character) are reported here; the parser reports the
// rest when a unit is compiled. name is the file name used in errors.
func splitCell(name, src string) ([]unit, error) {
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, []byte(src), func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)

	var units []unit
	var piece []tok
	depth := 0
	flush := func(end int) {
		if len(piece) == 0 {
			return
		}
		kind, nonImport := classify(piece)
		start := piece[0].off
		piece = piece[:0]
		if n := len(units); n > 0 {
			u := &units[n-1]
			if u.kind == kind && (kind == unitStmts || nonImport || !u.nonImport) {
				u.end = end
				u.nonImport = u.nonImport || nonImport
				return
			}
		}
		units = append(units, unit{kind: kind, start: start, end: end, nonImport: nonImport})
	}
	first := true
	for {
		pos, t, _ := s.Scan()
		off := file.Offset(pos)
		if first && t == token.PACKAGE {
			if len(errs) > 0 {
				return nil, errs
			}
			return []unit{{kind: unitFile, start: 0, end: len(src)}}, nil
		}
		first = false
		switch t {
		case token.EOF:
			flush(len(src))
			if len(errs) > 0 {
				errs.Sort()
				return nil, errs
			}
			return units, nil
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if depth > 0 {
				depth--
			}
		case token.SEMICOLON:
			if depth == 0 {
				flush(off)
				continue
			}
		}
		piece = append(piece, tok{t, off})
	}
}

// classify tells a declaration from a statement by its first tokens. A func
// keyword starts a declaration when a name follows it (func f(...)) or when
// a receiver is followed by a name and a parameter list (func (r T) M(...));
// otherwise it is a function literal in a statement.
func classify(p []tok) (unitKind, bool) {
	switch p[0].t {
	case token.IMPORT:
		return unitDecls, false
	case token.TYPE, token.CONST, token.VAR:
		return unitDecls, true
	case token.FUNC:
		if len(p) > 1 && p[1].t == token.IDENT {
			return unitDecls, true
		}
		if len(p) > 1 && p[1].t == token.LPAREN {
			depth := 0
			for i := 1; i < len(p); i++ {
				switch p[i].t {
				case token.LPAREN, token.LBRACK, token.LBRACE:
					depth++
				case token.RPAREN, token.RBRACK, token.RBRACE:
					depth--
				}
				if depth == 0 {
					if i+2 < len(p) && p[i+1].t == token.IDENT && (p[i+2].t == token.LPAREN || p[i+2].t == token.LBRACK) {
						return unitDecls, true
					}
					break
				}
			}
		}
	}
	return unitStmts, false
}

// lineCol returns the 1-based line and byte column of offset off in src.
func lineCol(src string, off int) (line, col int) {
	line, col = 1, 1
	for i := 0; i < off && i < len(src); i++ {
		if src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
