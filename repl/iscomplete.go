package repl

import (
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// Status values of IsComplete, as Jupyter's is_complete_reply names them.
const (
	Complete   = "complete"
	Incomplete = "incomplete"
	Invalid    = "invalid"
)

// IsComplete tells a front end whether src is ready to run: "incomplete"
// while a block, bracket, raw string or comment is open, or the last line
// ends where Go inserts no semicolon (after an operator, a comma, a dot);
// "invalid" when src can never parse; "complete" otherwise (also for empty
// input and :commands). indent is the indentation to offer on the next
// line: one tab per open bracket.
func IsComplete(src string) (status, indent string) {
	trimmed := strings.TrimSpace(src)
	if trimmed == "" || strings.HasPrefix(trimmed, ":") {
		return Complete, ""
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var errs []string
	var s scanner.Scanner
	s.Init(file, []byte(src), func(_ token.Position, msg string) { errs = append(errs, msg) }, 0)
	var stack []token.Token
	last := token.ILLEGAL
	for {
		_, t, _ := s.Scan()
		if t == token.EOF {
			break
		}
		switch t {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			stack = append(stack, t)
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(stack) == 0 || closer(stack[len(stack)-1]) != t {
				return Invalid, ""
			}
			stack = stack[:len(stack)-1]
		}
		last = t
	}
	for _, e := range errs {
		if strings.Contains(e, "raw string literal not terminated") || strings.Contains(e, "comment not terminated") {
			return Incomplete, strings.Repeat("\t", len(stack))
		}
	}
	if len(errs) > 0 {
		return Invalid, ""
	}
	if len(stack) > 0 {
		return Incomplete, strings.Repeat("\t", len(stack))
	}
	if last != token.SEMICOLON {
		// No semicolon was inserted at the end: the last line ends with an
		// operator, a comma, a dot or a keyword that needs more.
		return Incomplete, ""
	}
	if err := parseCell(src); err != nil {
		return Invalid, ""
	}
	return Complete, ""
}

func closer(open token.Token) token.Token {
	switch open {
	case token.LPAREN:
		return token.RPAREN
	case token.LBRACK:
		return token.RBRACK
	}
	return token.RBRACE
}

// parseCell parses every unit of src as EvalSource would, without running
// anything, and returns the first syntax error.
func parseCell(src string) error {
	units, err := splitCell("input", src)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	for _, u := range units {
		text := src[u.start:u.end]
		var err error
		switch u.kind {
		case unitFile:
			_, err = parser.ParseFile(fset, "input", src, parser.DeclarationErrors)
		case unitDecls:
			_, err = parser.ParseFile(fset, "input", declPrefix+text, parser.DeclarationErrors)
		default:
			_, err = parser.ParseFile(fset, "input", stmtPrefix+text+stmtSuffix, parser.DeclarationErrors)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
