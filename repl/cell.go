package repl

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
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

// parseUnit parses the unit u of the cell src: a file, declarations (as a
// file), or statements (as the body of a function main).
func (s *Session) parseUnit(name, src string, u unit) (*ast.File, error) {
	name = filepath.Clean(name) + fileSuffix
	text := src[u.start:u.end]
	line, col := lineCol(src, u.start)
	fset := s.in.FileSet()
	switch u.kind {
	case unitFile:
		f, err := parser.ParseFile(fset, name, src, parser.DeclarationErrors)
		if err != nil {
			return nil, compileError(err)
		}
		return f, nil
	case unitDecls:
		f, err := parser.ParseFile(fset, name, declPrefix+lineDirective(line, col)+text, parser.DeclarationErrors)
		if err != nil {
			return nil, compileError(err)
		}
		return f, nil
	}
	wrapped := stmtPrefix + lineDirective(line, col) + text + stmtSuffix
	f, err := parser.ParseFile(fset, name, wrapped, parser.DeclarationErrors)
	if err != nil {
		return nil, eofError(compileError(err), line+strings.Count(text, "\n")+1)
	}
	return f, nil
}

// lineDirective makes the next line line:col of the unit's file. The file
// name is relative, so the scanner joins it to the directory of the file
// being parsed: the cell name (see fileSuffix).
func lineDirective(line, col int) string {
	return fmt.Sprintf("//line _.go:%d:%d\n", line, col)
}

// eofError rewrites a parse error found on the synthetic closing line of a
// statement unit as the end of input it is.
func eofError(err error, closeLine int) error {
	var ce *CompileError
	if !errors.As(err, &ce) {
		return err
	}
	if ce.Pos.Line >= closeLine {
		ce.Msg = strings.Replace(ce.Msg, "found '}'", "found end of input", 1)
		ce.Pos.Line, ce.Pos.Column = closeLine-1, 0
	}
	more := ce.More[:0]
	for _, m := range ce.More { // drop the errors about the closing line the session added
		if p := posPrefix.FindStringSubmatch(m); p != nil {
			if line, _ := strconv.Atoi(p[2]); line >= closeLine {
				continue
			}
		}
		more = append(more, m)
	}
	ce.More = more
	return err
}
