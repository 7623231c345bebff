package datasets

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// RDFTermKind says what an RDF term is: an IRI, a blank node or a literal.
type RDFTermKind int

// The kinds of RDFTerm.
const (
	IRI RDFTermKind = iota
	BlankNode
	Literal
)

func (k RDFTermKind) String() string {
	switch k {
	case IRI:
		return "IRI"
	case BlankNode:
		return "blank node"
	case Literal:
		return "literal"
	}
	return fmt.Sprintf("RDFTermKind(%d)", int(k))
}

// RDFTerm is one term of an RDF triple (RDF 1.1 Concepts): an IRI (Value
// is the IRI without its angle brackets, escapes decoded), a blank node
// (Value is its label without "_:") or a literal (Value is the lexical
// form with its escapes decoded; Datatype the datatype IRI or ""; Lang the
// language tag or "").
type RDFTerm struct {
	Kind           RDFTermKind
	Value          string
	Datatype, Lang string
}

// String writes the term back in N-Triples syntax (escapes not re-encoded).
func (t RDFTerm) String() string {
	switch t.Kind {
	case IRI:
		return "<" + t.Value + ">"
	case BlankNode:
		return "_:" + t.Value
	}
	s := strconv.Quote(t.Value)
	if t.Lang != "" {
		return s + "@" + t.Lang
	}
	if t.Datatype != "" {
		return s + "^^<" + t.Datatype + ">"
	}
	return s
}

// Triple is one RDF statement: subject, predicate, object.
type Triple struct{ Subject, Predicate, Object RDFTerm }

// LoadNTriples reads an N-Triples file (W3C RDF 1.1 N-Triples, one triple
// "<s> <p> <o> ." a line; a gzip file is decompressed on the fly) and
// returns its triples in file order. Blank lines and '#' comment lines are
// skipped. The parser is strict: IRIs, blank-node labels, literals with
// their \t \b \n \r \f \" \' \\ \uXXXX \UXXXXXXXX escapes, datatypes and
// language tags follow the grammar, and anything else (a missing final
// ".", a literal as subject, an unterminated string, a last line without
// its line ending, a cut gzip stream) is an error wrapping ErrFormat that
// names the file and the line. A missing file wraps ErrMissing.
func LoadNTriples(path string) ([]Triple, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Triple
	for {
		line, err := f.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if f.atEOFWithoutNewline() {
			return nil, f.errorf("the last line %q has no line ending: the file is truncated", clip(line))
		}
		p := ntParser{s: line}
		p.skipWS()
		if p.done() || p.peek() == '#' {
			continue
		}
		tr, err := p.triple()
		if err != nil {
			return nil, f.errorf("%v (at column %d)", err, p.i+1)
		}
		out = append(out, tr)
	}
}

// ntParser parses one N-Triples line.
type ntParser struct {
	s []byte
	i int
}

func (p *ntParser) done() bool { return p.i >= len(p.s) }
func (p *ntParser) peek() byte { return p.s[p.i] }

func (p *ntParser) skipWS() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *ntParser) triple() (Triple, error) {
	var t Triple
	var err error
	if t.Subject, err = p.term("subject"); err != nil {
		return t, err
	}
	if t.Subject.Kind == Literal {
		return t, fmt.Errorf("the subject is a literal; want an IRI or a blank node")
	}
	p.skipWS()
	if t.Predicate, err = p.term("predicate"); err != nil {
		return t, err
	}
	if t.Predicate.Kind != IRI {
		return t, fmt.Errorf("the predicate is a %s; want an IRI", t.Predicate.Kind)
	}
	p.skipWS()
	if t.Object, err = p.term("object"); err != nil {
		return t, err
	}
	p.skipWS()
	if p.done() || p.peek() != '.' {
		return t, fmt.Errorf("want \".\" after the object")
	}
	p.i++
	p.skipWS()
	if !p.done() && p.peek() != '#' {
		return t, fmt.Errorf("unexpected %q after the final \".\"", clip(p.s[p.i:]))
	}
	return t, nil
}

func (p *ntParser) term(role string) (RDFTerm, error) {
	if p.done() {
		return RDFTerm{}, fmt.Errorf("the line ends before the %s", role)
	}
	switch p.peek() {
	case '<':
		v, err := p.iri()
		return RDFTerm{Kind: IRI, Value: v}, err
	case '_':
		return p.blank()
	case '"':
		return p.literal()
	}
	return RDFTerm{}, fmt.Errorf("the %s starts with %q; want '<', '_:' or '\"'", role, p.peek())
}

func (p *ntParser) iri() (string, error) {
	p.i++ // '<'
	var b strings.Builder
	for {
		if p.done() {
			return "", fmt.Errorf("unterminated IRI (no closing '>')")
		}
		c := p.peek()
		switch {
		case c == '>':
			p.i++
			return b.String(), nil
		case c == '\\':
			r, err := p.escape(false)
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
		case c <= 0x20 || strings.IndexByte("<\"{}|^`", c) >= 0:
			return "", fmt.Errorf("character %q is not allowed in an IRI", c)
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

func isPNChar(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func (p *ntParser) blank() (RDFTerm, error) {
	if p.i+1 >= len(p.s) || p.s[p.i+1] != ':' {
		return RDFTerm{}, fmt.Errorf("a blank node label must start with \"_:\"")
	}
	p.i += 2
	start := p.i
	for p.i < len(p.s) && (isPNChar(p.s[p.i]) || p.s[p.i] == '.') {
		p.i++
	}
	// A label cannot end with '.': give trailing dots back (the final ".").
	for p.i > start && p.s[p.i-1] == '.' {
		p.i--
	}
	if p.i == start || p.s[start] == '-' {
		return RDFTerm{}, fmt.Errorf("empty or invalid blank node label")
	}
	return RDFTerm{Kind: BlankNode, Value: string(p.s[start:p.i])}, nil
}

func (p *ntParser) literal() (RDFTerm, error) {
	p.i++ // '"'
	var b strings.Builder
	for {
		if p.done() {
			return RDFTerm{}, fmt.Errorf("unterminated string literal (no closing '\"')")
		}
		c := p.peek()
		if c == '"' {
			p.i++
			break
		}
		if c == '\\' {
			r, err := p.escape(true)
			if err != nil {
				return RDFTerm{}, err
			}
			b.WriteRune(r)
			continue
		}
		b.WriteByte(c)
		p.i++
	}
	t := RDFTerm{Kind: Literal, Value: b.String()}
	if !utf8.ValidString(t.Value) {
		return t, fmt.Errorf("the literal is not valid UTF-8")
	}
	if p.done() {
		return t, nil
	}
	switch p.peek() {
	case '^':
		if p.i+2 >= len(p.s) || p.s[p.i+1] != '^' || p.s[p.i+2] != '<' {
			return t, fmt.Errorf("want \"^^<datatype IRI>\" after the literal")
		}
		p.i += 2
		dt, err := p.iri()
		t.Datatype = dt
		return t, err
	case '@':
		p.i++
		start := p.i
		for p.i < len(p.s) && (p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' ||
			p.i > start && (p.s[p.i] == '-' || p.s[p.i] >= '0' && p.s[p.i] <= '9')) {
			p.i++
		}
		if p.i == start || p.s[p.i-1] == '-' {
			return t, fmt.Errorf("invalid language tag")
		}
		t.Lang = string(p.s[start:p.i])
	}
	return t, nil
}

// escape decodes the escape sequence at p.i: \uXXXX and \UXXXXXXXX
// anywhere, the ECHAR escapes only in strings.
func (p *ntParser) escape(echar bool) (rune, error) {
	if p.i+1 >= len(p.s) {
		return 0, fmt.Errorf("the line ends inside an escape sequence")
	}
	c := p.s[p.i+1]
	n := 0
	switch c {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		if echar {
			if r, ok := map[byte]rune{'t': '\t', 'b': '\b', 'n': '\n', 'r': '\r', 'f': '\f', '"': '"', '\'': '\'', '\\': '\\'}[c]; ok {
				p.i += 2
				return r, nil
			}
		}
		return 0, fmt.Errorf("invalid escape sequence \\%c", c)
	}
	if p.i+2+n > len(p.s) {
		return 0, fmt.Errorf("the line ends inside a \\%c escape", c)
	}
	v, err := strconv.ParseUint(string(p.s[p.i+2:p.i+2+n]), 16, 32)
	if err != nil || v > utf8.MaxRune || v >= 0xD800 && v <= 0xDFFF {
		return 0, fmt.Errorf("invalid \\%c escape %q", c, p.s[p.i:p.i+2+n])
	}
	p.i += 2 + n
	return rune(v), nil
}
