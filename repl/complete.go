package repl

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

var goKeywords = []string{
	"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface",
	"map", "package", "range", "return", "select", "struct", "switch", "type", "var",
}

var goBuiltins = map[string]string{
	"append":  "func append(slice []Type, elems ...Type) []Type\n\nappend appends elements to the end of a slice and returns the updated slice.",
	"cap":     "func cap(v Type) int\n\ncap returns the capacity of v.",
	"clear":   "func clear[T ~[]Type | ~map[Type]Type1](t T)\n\nclear deletes all map entries or zeroes all slice elements.",
	"close":   "func close(c chan<- Type)\n\nclose closes a channel.",
	"complex": "func complex(r, i FloatType) ComplexType",
	"copy":    "func copy(dst, src []Type) int\n\ncopy copies elements from src to dst and returns the number copied.",
	"delete":  "func delete(m map[Type]Type1, key Type)\n\ndelete deletes the element with the given key from the map.",
	"imag":    "func imag(c ComplexType) FloatType",
	"len":     "func len(v Type) int\n\nlen returns the length of v.",
	"make":    "func make(t Type, size ...IntegerType) Type\n\nmake allocates and initializes a slice, map or channel.",
	"max":     "func max[T cmp.Ordered](x T, y ...T) T",
	"min":     "func min[T cmp.Ordered](x T, y ...T) T",
	"new":     "func new(Type) *Type\n\nnew allocates a zero value of Type and returns a pointer to it.",
	"panic":   "func panic(v any)\n\npanic stops normal execution; the session shows the value and the stack.",
	"print":   "func print(args ...Type)",
	"println": "func println(args ...Type)",
	"real":    "func real(c ComplexType) FloatType",
	"recover": "func recover() any",
	"any":     "type any = interface{}", "bool": "type bool", "byte": "type byte = uint8",
	"error": "type error interface { Error() string }", "float32": "type float32", "float64": "type float64",
	"int": "type int", "int8": "type int8", "int16": "type int16", "int32": "type int32", "int64": "type int64",
	"rune": "type rune = int32", "string": "type string", "uint": "type uint", "uint8": "type uint8",
	"uint16": "type uint16", "uint32": "type uint32", "uint64": "type uint64", "uintptr": "type uintptr",
	"true": "const true = 0 == 0", "false": "const false = 0 != 0", "nil": "var nil Type",
	"iota": "const iota = 0",
}

func isIdentRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// identStart returns the offset where the identifier ending at end starts.
func identStart(src string, end int) int {
	i := end
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(src[:i])
		if !isIdentRune(r) {
			break
		}
		i -= n
	}
	return i
}

// chainStart returns the offset where the selector chain (a.b.c) ending at
// end starts.
func chainStart(src string, end int) int {
	i := identStart(src, end)
	for i > 0 && src[i-1] == '.' {
		j := identStart(src, i-1)
		if j == i-1 {
			break
		}
		i = j
	}
	return i
}

// Complete returns the completions of the word before byte offset cursor in
// src, and the byte range [start, end) they replace: :commands at the start
// of a line, file names after :load, inside a string literal the data keys
// of the graph or block whose NData, EData, SrcData or DstData (their Has,
// Set and hetero ...Of forms too) takes it (g.NData("fe: "feat"; the node or
// edge type in a hetero form's first argument) and nothing elsewhere in a
// string, package members after "pkg.", fields and
// methods after "v." for a session variable v, the members of the result's
// static type after a chain with calls or indexes (ds.Graph.NData("feat").Sh;
// nothing is called), the fields of the struct in a composite literal's key
// position (nn.GCNOptions{Hid, or after "Key: value,"), and otherwise the
// session's names, imported and known packages, builtins and keywords. Jupyter counts
// cursor_pos in code points; see ByteOffset.
func (s *Session) Complete(src string, cursor int) (candidates []string, start, end int) {
	if cursor < 0 || cursor > len(src) {
		cursor = len(src)
	}
	lineStart := strings.LastIndexByte(src[:cursor], '\n') + 1
	line := src[lineStart:cursor]
	trimmed := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(trimmed, ":") {
		off := lineStart + len(line) - len(trimmed)
		if !strings.ContainsAny(trimmed, " \t") {
			for _, c := range commands {
				if strings.HasPrefix(c.name, trimmed) {
					candidates = append(candidates, c.name)
				}
			}
			return candidates, off, cursor
		}
		if strings.HasPrefix(trimmed, ":load ") {
			arg := strings.TrimLeft(trimmed[len(":load "):], " ")
			return completeFile(arg), cursor - len(arg), cursor
		}
		if !strings.HasPrefix(trimmed, ":doc ") && !strings.HasPrefix(trimmed, ":time ") {
			return nil, cursor, cursor
		}
	}
	// Inside a string literal: a data key of a graph or block
	// (g.NData("fe), else nothing.
	if q, ok := stringStart(src, cursor); ok {
		return filterPrefix(s.dataKeys(src, q), src[q+1:cursor]), q + 1, cursor
	}
	start = identStart(src, cursor)
	prefix := src[start:cursor]
	if start > 0 && src[start-1] == '.' {
		if chain := src[chainStart(src, start-1) : start-1]; chain != "" && exprStart(src, start-1) == chainStart(src, start-1) {
			return filterPrefix(s.members(chain), prefix), start, cursor
		}
		// A chain with calls or indexes: ds.Graph.NData("feat").Sh
		expr := src[exprStart(src, start-1) : start-1]
		if t, ok := s.exprType(expr); ok {
			return filterPrefix(typeMembers(t), prefix), start, cursor
		}
		return nil, start, cursor
	}
	// A field name in a composite literal: nn.GCNOptions{Hid
	if typ, ok := literalKeyType(src, start); ok {
		if t, ok := s.namedType(typ); ok {
			if fields := filterPrefix(structFields(t), prefix); len(fields) > 0 || prefix == "" {
				return fields, start, cursor
			}
		}
	}
	if prefix == "" {
		return nil, start, cursor
	}
	return filterPrefix(s.topNames(), prefix), start, cursor
}

// skipBack returns the offset of the opening bracket matching the closing
// one at src[i-1] (')' or ']' or '}'), skipping nested brackets and
// string, rune and raw-string literals; -1 when there is none.
func skipBack(src string, i int) int {
	depth := 0
	for i > 0 {
		i--
		switch c := src[i]; c {
		case ')', ']', '}':
			depth++
		case '(', '[', '{':
			depth--
			if depth == 0 {
				return i
			}
			if depth < 0 {
				return -1
			}
		case '"', '\'', '`':
			j := i - 1
			for j >= 0 && !(src[j] == c && (c == '`' || j == 0 || src[j-1] != '\\')) {
				j--
			}
			if j < 0 {
				return -1
			}
			i = j
		}
	}
	return -1
}

// exprStart returns the offset where the primary expression ending at end
// starts: a selector chain whose elements may carry calls and indexes,
// such as ds.Graph.NData("feat") or xs[0].Shape().
func exprStart(src string, end int) int {
	i := end
	for {
		for i > 0 && (src[i-1] == ')' || src[i-1] == ']') {
			j := skipBack(src, i)
			if j < 0 {
				return i
			}
			i = j
		}
		j := identStart(src, i)
		if j == i {
			return i
		}
		i = j
		if i == 0 || src[i-1] != '.' {
			return i
		}
		k := i - 1
		if k == 0 || !(isIdentRune(rune(src[k-1])) || src[k-1] == ')' || src[k-1] == ']') {
			return i
		}
		i = k
	}
}

// exprSegment is one element of a selector chain: a name followed by
// calls "(...)" and indexes "[...]", in order ('(' or '[').
type exprSegment struct {
	name     string
	suffixes []byte
}

// splitExpr splits a primary expression (see exprStart) into its
// segments; ok is false for anything else.
func splitExpr(expr string) (segs []exprSegment, ok bool) {
	i := 0
	for i < len(expr) {
		j := i
		for j < len(expr) {
			r, n := utf8.DecodeRuneInString(expr[j:])
			if !isIdentRune(r) {
				break
			}
			j += n
		}
		if j == i {
			return nil, false
		}
		seg := exprSegment{name: expr[i:j]}
		for j < len(expr) && (expr[j] == '(' || expr[j] == '[') {
			k := matchForward(expr, j)
			if k < 0 {
				return nil, false
			}
			seg.suffixes = append(seg.suffixes, expr[j])
			j = k + 1
		}
		segs = append(segs, seg)
		if j < len(expr) {
			if expr[j] != '.' {
				return nil, false
			}
			j++
		}
		i = j
	}
	return segs, len(segs) > 0
}

// matchForward returns the offset of the bracket closing the one at
// src[i], skipping literals; -1 when there is none.
func matchForward(src string, i int) int {
	depth := 0
	for ; i < len(src); i++ {
		switch c := src[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return i
			}
		case '"', '\'', '`':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			i = j
		}
	}
	return -1
}

// exprType returns the static type of a primary expression without
// evaluating it: session variables give their (dynamic) type, and calls
// of package functions, session functions and methods give their first
// result's type, fields their type, indexes their element type.
func (s *Session) exprType(expr string) (reflect.Type, bool) {
	segs, ok := splitExpr(expr)
	if !ok {
		return nil, false
	}
	var t reflect.Type
	first, rest := segs[0], segs[1:]
	if p := s.pkgPath(first.name); p != "" && len(first.suffixes) == 0 && len(rest) > 0 {
		v, ok := s.symbol(p, rest[0].name)
		if !ok {
			return nil, false
		}
		switch {
		case v.Kind() == reflect.Func:
			t = v.Type()
		case v.Kind() == reflect.Pointer && v.IsNil(): // a type: a conversion
			t = v.Type().Elem()
			if len(rest[0].suffixes) == 0 || rest[0].suffixes[0] != '(' {
				return nil, false
			}
			rest[0].suffixes = rest[0].suffixes[1:]
		default:
			t = v.Type()
		}
		first, rest = rest[0], rest[1:]
	} else if v, ok := s.lookupValue([]string{first.name}); ok {
		t = v.Type()
		if v.Kind() == reflect.Interface && !v.IsNil() {
			t = v.Elem().Type()
		}
	} else if s.kind(first.name) == "func" && s.mu.TryLock() {
		v, err := s.evalQuiet(first.name)
		s.mu.Unlock()
		if err != nil || !v.IsValid() || v.Kind() != reflect.Func {
			return nil, false
		}
		t = v.Type()
	} else {
		return nil, false
	}
	if t, ok = applySuffixes(t, first.suffixes); !ok {
		return nil, false
	}
	for _, seg := range rest {
		if t, ok = selectType(t, seg.name); !ok {
			return nil, false
		}
		if t, ok = applySuffixes(t, seg.suffixes); !ok {
			return nil, false
		}
	}
	return t, true
}

// selectType is the type of t.name: a field's type, or a method's
// function type (without the receiver).
func selectType(t reflect.Type, name string) (reflect.Type, bool) {
	if m, ok := t.MethodByName(name); ok {
		if t.Kind() == reflect.Interface {
			return m.Type, true
		}
		return methodFunc(m.Type), true
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		if m, ok := reflect.PointerTo(t).MethodByName(name); ok {
			return methodFunc(m.Type), true
		}
	}
	st := t
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct {
		if f, ok := st.FieldByName(name); ok && f.IsExported() {
			return f.Type, true
		}
	}
	return nil, false
}

// methodFunc drops the receiver from a method expression's type.
func methodFunc(t reflect.Type) reflect.Type {
	in := make([]reflect.Type, 0, t.NumIn())
	for i := 1; i < t.NumIn(); i++ {
		in = append(in, t.In(i))
	}
	out := make([]reflect.Type, t.NumOut())
	for i := range out {
		out[i] = t.Out(i)
	}
	return reflect.FuncOf(in, out, t.IsVariadic())
}

// applySuffixes applies calls (the first result) and indexes (the
// element) to t.
func applySuffixes(t reflect.Type, suffixes []byte) (reflect.Type, bool) {
	for _, c := range suffixes {
		if c == '(' {
			if t.Kind() != reflect.Func || t.NumOut() == 0 {
				return nil, false
			}
			t = t.Out(0)
			continue
		}
		for t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Array {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		case reflect.String:
			t = reflect.TypeOf(byte(0))
		default:
			return nil, false
		}
	}
	return t, true
}

// typeMembers lists the exported fields and methods of t (and of *t).
func typeMembers(t reflect.Type) []string {
	var out []string
	add := func(t reflect.Type) {
		for i := 0; i < t.NumMethod(); i++ {
			out = append(out, t.Method(i).Name)
		}
	}
	add(t)
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		add(reflect.PointerTo(t))
	}
	return append(out, structFields(t)...)
}

// structFields lists the exported fields of struct type t (or *t).
func structFields(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	// yaegi builds a session's struct types with reflect.StructOf, which
	// has no package path and renames unexported fields to X<name>.
	interpreted := t.PkgPath() == "" && t.Name() == ""
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(f.Name[1:]); interpreted && f.Name[0] == 'X' && unicode.IsLower(r) {
			continue
		}
		out = append(out, f.Name)
	}
	return out
}

// literalKeyType reports whether offset start (the start of the word
// being completed) is a key position of a composite literal, right after
// its '{' or after a ',' that ends a previous element, and returns the
// literal's type as written (nn.GCNOptions, point). The type must touch
// the '{', as gofmt writes it, so that a block (if x {) is not taken for a
// literal.
func literalKeyType(src string, start int) (string, bool) {
	i := start
	for i > 0 && strings.ContainsRune(" \t\r\n", rune(src[i-1])) {
		i--
	}
	if i == 0 || (src[i-1] != '{' && src[i-1] != ',') {
		return "", false
	}
	// Walk back over the previous elements to the literal's '{'.
	for i > 0 && src[i-1] != '{' {
		switch c := src[i-1]; c {
		case ')', ']', '}':
			j := skipBack(src, i)
			if j < 0 {
				return "", false
			}
			i = j
		case '"', '\'', '`':
			j := i - 2
			for j >= 0 && !(src[j] == c && (c == '`' || j == 0 || src[j-1] != '\\')) {
				j--
			}
			if j < 0 {
				return "", false
			}
			i = j
		case ';', '(', '[', '=':
			if c == '=' && i >= 2 && strings.ContainsRune("=!<>", rune(src[i-2])) {
				i--
				continue
			}
			return "", false
		case '\n':
			// A new statement line inside a literal is fine (a multi-line
			// literal), but not after a line that ended a statement: keep
			// going, the '{' decides.
			i--
		default:
			i--
		}
	}
	if i == 0 {
		return "", false
	}
	open := i - 1
	ts := chainStart(src, open)
	for ts > 0 && src[ts-1] == '&' {
		ts--
	}
	typ := strings.TrimLeft(src[ts:open], "&")
	if typ == "" {
		return "", false
	}
	return typ, true
}

// namedType resolves a type name as written in a composite literal: a
// package's exported type (nn.GCNOptions) from the symbol tables, or a
// type declared in the session.
func (s *Session) namedType(name string) (reflect.Type, bool) {
	parts := strings.Split(name, ".")
	switch len(parts) {
	case 2:
		p := s.pkgPath(parts[0])
		if p == "" {
			return nil, false
		}
		v, ok := s.symbol(p, parts[1])
		if !ok || v.Kind() != reflect.Pointer || !v.IsNil() {
			return nil, false
		}
		return v.Type().Elem(), true
	case 1:
		if s.kind(name) != "type" || !s.mu.TryLock() {
			return nil, false
		}
		defer s.mu.Unlock()
		v, err := s.evalQuiet(name + "{}")
		if err != nil || !v.IsValid() {
			return nil, false
		}
		return v.Type(), true
	}
	return nil, false
}

// symbol returns member name of the compiled package at import path p
// from the symbol tables.
func (s *Session) symbol(p, name string) (reflect.Value, bool) {
	pkg := s.pkgName(p)
	for _, x := range s.opts.Symbols {
		if m, ok := x[p+"/"+pkg]; ok {
			if v, ok := m[name]; ok {
				return v, true
			}
		}
	}
	return reflect.Value{}, false
}

func filterPrefix(names []string, prefix string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if strings.HasPrefix(n, prefix) && !seen[n] && !strings.HasPrefix(n, "_gnnrepl") {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// topNames lists every name valid at the start of an expression.
func (s *Session) topNames() []string {
	var names []string
	s.nmu.Lock()
	for n := range s.names {
		names = append(names, n)
	}
	for n := range s.imports {
		names = append(names, n)
	}
	s.nmu.Unlock()
	for n := range s.packages {
		names = append(names, n)
	}
	for n := range goBuiltins {
		names = append(names, n)
	}
	return append(names, goKeywords...)
}

// members lists the names that can follow "chain.".
func (s *Session) members(chain string) []string {
	parts := strings.Split(chain, ".")
	if len(parts) == 1 {
		if p := s.pkgPath(parts[0]); p != "" {
			return s.pkgMembers(p)
		}
	}
	v, ok := s.lookupValue(parts)
	if !ok {
		return nil
	}
	return valueMembers(v)
}

// pkgPath returns the import path a name stands for: an import of the
// session, or else a package of that name in the symbol tables.
func (s *Session) pkgPath(name string) string {
	s.nmu.Lock()
	p, ok := s.imports[name]
	_, shadow := s.names[name]
	s.nmu.Unlock()
	if ok {
		return p
	}
	if shadow {
		return ""
	}
	return s.packages[name]
}

func (s *Session) pkgMembers(p string) []string {
	return s.memberTable[p]
}

// lookupValue finds the value of a session variable and follows the
// field selectors after it. It needs the interpreter, so it gives up
// while an evaluation runs.
func (s *Session) lookupValue(parts []string) (reflect.Value, bool) {
	if !s.mu.TryLock() {
		return reflect.Value{}, false
	}
	g := s.in.Globals()
	s.mu.Unlock()
	v, ok := g[parts[0]]
	if !ok {
		return reflect.Value{}, false
	}
	for _, f := range parts[1:] {
		v = deref(v)
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		v = v.FieldByName(f)
		if !v.IsValid() {
			return reflect.Value{}, false
		}
	}
	return v, true
}

func deref(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) {
		if v.IsNil() {
			if v.Kind() == reflect.Pointer {
				return reflect.Zero(v.Type().Elem())
			}
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// valueMembers lists the exported fields and methods of v's type.
func valueMembers(v reflect.Value) []string {
	var out []string
	t := v.Type()
	if v.Kind() == reflect.Interface && !v.IsNil() {
		t = v.Elem().Type()
	}
	add := func(t reflect.Type) {
		for i := 0; i < t.NumMethod(); i++ {
			out = append(out, t.Method(i).Name)
		}
	}
	add(t)
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		add(reflect.PointerTo(t))
	}
	return append(out, structFields(t)...)
}

func completeFile(prefix string) []string {
	dir, base := filepath.Split(prefix)
	d := dir
	if d == "" {
		d = "."
	}
	entries, err := os.ReadDir(d)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if e.IsDir() {
			n += "/"
		}
		out = append(out, dir+n)
	}
	sort.Strings(out)
	return out
}

// Inspect returns the documentation of the name under (or just before)
// byte offset cursor: the doc table entry of an engine package member, type
// or method (Options.Docs), the signature of a standard library symbol, the
// type and value of a session variable, the doc of a builtin or of a
// :command. ok is false when there is nothing to say.
func (s *Session) Inspect(src string, cursor int) (doc string, ok bool) {
	if cursor < 0 || cursor > len(src) {
		cursor = len(src)
	}
	lineStart := strings.LastIndexByte(src[:cursor], '\n') + 1
	if t := strings.TrimSpace(src[lineStart:]); strings.HasPrefix(t, ":") {
		name := strings.Fields(t)[0]
		if c, found := findCommand(name); found {
			return c.name + " " + c.args + "\n\n" + c.help, true
		}
	}
	end := cursor
	for end < len(src) {
		r, n := utf8.DecodeRuneInString(src[end:])
		if !isIdentRune(r) {
			break
		}
		end += n
	}
	chain := src[chainStart(src, end):end]
	if chain == "" {
		return "", false
	}
	return s.describe(strings.Split(chain, "."))
}

// Doc returns the documentation of a qualified name such as "tensor.Zeros",
// "fmt.Println", a method "tensor.Tensor.Reshape", a field of a package's
// type "nn.GCNOptions.HiddenFeats", a variable "x", or a variable's field
// or method "model.Layers", "model.Forward"; it is what :doc NAME prints.
func (s *Session) Doc(name string) (string, bool) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", false
	}
	return s.describe(strings.Split(name, "."))
}

// packageMembers lists the documented exported names of package pkg
// (as go doc does after the package comment), or "".
func (s *Session) packageMembers(pkg string) string {
	var names []string
	for k := range s.allDocs() {
		if rest, ok := strings.CutPrefix(k, pkg+"."); ok && !strings.Contains(rest, ".") {
			names = append(names, rest)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("\n\nMembers (:doc " + pkg + ".NAME):")
	line := 0
	for _, n := range names {
		if line+len(n)+1 > 76 {
			b.WriteString("\n ")
			line = 0
		}
		b.WriteString(" " + n)
		line += len(n) + 1
	}
	return b.String()
}

// typeMethods lists the declarations of the documented methods of the
// type key ("pkg.Type"), as go doc does after a type's doc.
func (s *Session) typeMethods(key string) string {
	var sigs []string
	for k := range s.allDocs() {
		if name, ok := strings.CutPrefix(k, key+"."); ok && !strings.Contains(name, ".") {
			d, _ := s.doc(k)
			sig, _, _ := strings.Cut(d, "\n\n")
			sigs = append(sigs, strings.TrimSpace(sig))
		}
	}
	if len(sigs) == 0 {
		return ""
	}
	sortStrings(sigs)
	return "\n\nMethods (:doc " + key + ".NAME):\n\t" + strings.Join(sigs, "\n\t")
}

func (s *Session) describe(parts []string) (string, bool) {
	if p := s.pkgPath(parts[0]); p != "" {
		pkg := s.pkgName(p)
		if len(parts) == 1 {
			if d, ok := s.doc(pkg); ok {
				return d + s.packageMembers(pkg), true
			}
			return fmt.Sprintf("package %s // import %q", pkg, p), true
		}
		key := pkg + "." + strings.Join(parts[1:], ".")
		if d, ok := s.doc(key); ok {
			if len(parts) == 2 && strings.HasPrefix(d, "type ") {
				d += s.typeMethods(key)
			}
			return d, true
		}
		if len(parts) == 2 {
			return s.describeSymbol(p, pkg, parts[1])
		}
		// A field of a package's struct type: nn.GCNOptions.HiddenFeats.
		if len(parts) == 3 {
			if t, ok := s.namedType(parts[0] + "." + parts[1]); ok && t.Kind() == reflect.Struct {
				if f, ok := t.FieldByName(parts[2]); ok && f.IsExported() {
					d := fmt.Sprintf("field %s %s of %s.%s", f.Name, f.Type, pkg, parts[1])
					if td, ok := s.doc(pkg + "." + parts[1]); ok {
						d += "\n\n" + td
					}
					return d, true
				}
			}
		}
		return "", false
	}
	if len(parts) == 1 {
		switch s.kind(parts[0]) {
		case "func", "type":
			return s.describeFunc(parts[0])
		}
	}
	if v, ok := s.lookupValue(parts[:1]); ok {
		name := parts[0]
		for _, f := range parts[1:] {
			t := deref(v)
			if t.IsValid() && t.Kind() == reflect.Struct {
				if fv := t.FieldByName(f); fv.IsValid() {
					v, name = fv, name+"."+f
					continue
				}
			}
			// A method: look for the doc of the type's method.
			if d, ok := s.typeDoc(v.Type(), f); ok {
				return d, true
			}
			return "", false
		}
		d := fmt.Sprintf("var %s %s = %s", name, typeString(v), Format(v))
		if td, ok := s.typeDoc(v.Type(), ""); ok {
			d += "\n\n" + td
		}
		return d, true
	}
	if len(parts) == 1 {
		if d, ok := goBuiltins[parts[0]]; ok {
			return d, true
		}
	}
	return "", false
}

func typeString(v reflect.Value) string {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		return v.Type().String() + " (" + v.Elem().Type().String() + ")"
	}
	return v.Type().String()
}

// typeDoc returns the doc of type t (method "") or of its method, from the
// doc table, for types of the engine packages.
func (s *Session) typeDoc(t reflect.Type, method string) (string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() == "" || t.Name() == "" {
		return "", false
	}
	key := s.pkgName(t.PkgPath()) + "." + t.Name()
	if method != "" {
		key += "." + method
	}
	d, ok := s.doc(key)
	return d, ok
}

// describeSymbol describes member name of the compiled package at path p
// from its symbol table entry.
func (s *Session) describeSymbol(p, pkg, name string) (string, bool) {
	var v reflect.Value
	for _, x := range s.opts.Symbols {
		if m, ok := x[p+"/"+pkg]; ok {
			if sv, ok := m[name]; ok {
				v = sv
			}
		}
	}
	if !v.IsValid() {
		return "", false
	}
	full := pkg + "." + name
	var d string
	if c, ok := v.Interface().(constant.Value); ok {
		d = fmt.Sprintf("const %s = %s", full, c.ExactString())
	} else {
		switch {
		case v.Kind() == reflect.Func:
			d = "func " + full + strings.TrimPrefix(v.Type().String(), "func")
		case v.Kind() == reflect.Pointer && v.IsNil():
			d = fmt.Sprintf("type %s %s", full, v.Type().Elem().Kind())
		case v.CanAddr():
			d = fmt.Sprintf("var %s %s", full, v.Type())
		default:
			d = fmt.Sprintf("%s %s", full, v.Type())
		}
	}
	// The session carries the documentation of its own packages only; a
	// standard-library member (an import path without a dot) gets the
	// address of its documentation.
	if first, _, _ := strings.Cut(p, "/"); !strings.Contains(first, ".") {
		d += "\n\nDocumentation: https://pkg.go.dev/" + p + "#" + name
	}
	return d, true
}

// describeFunc evaluates a session function's name to show its type.
func (s *Session) describeFunc(name string) (string, bool) {
	if s.kind(name) == "type" {
		return "type " + name + " (declared in this session)", true
	}
	if !s.mu.TryLock() {
		return "func " + name, true
	}
	defer s.mu.Unlock()
	g := s.in.Globals()
	if v, ok := g[name]; ok {
		return "var " + name + " " + v.Type().String(), true
	}
	v, err := s.evalQuiet(name)
	if err != nil || !v.IsValid() {
		return "func " + name, true
	}
	return "func " + name + strings.TrimPrefix(v.Type().String(), "func"), true
}

// ByteOffset converts a cursor counted in code points (Jupyter's
// cursor_pos) into a byte offset in src.
func ByteOffset(src string, runes int) int {
	off := 0
	for i := 0; i < runes && off < len(src); i++ {
		_, n := utf8.DecodeRuneInString(src[off:])
		off += n
	}
	return off
}

// RuneOffset converts a byte offset in src into a count of code points.
func RuneOffset(src string, bytes int) int {
	if bytes > len(src) {
		bytes = len(src)
	}
	return utf8.RuneCountInString(src[:bytes])
}

// evalQuiet evaluates a side-effect-free expression (a name) outside of any
// cell, recovering every panic. The caller holds s.mu.
func (s *Session) evalQuiet(expr string) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = reflect.Value{}, fmt.Errorf("%v", r)
		}
	}()
	return s.in.Eval(expr)
}

// docMiss explains why Doc found nothing for name: the first part of it
// that does not resolve, and the members that would.
func (s *Session) docMiss(name string) string {
	parts := strings.Split(strings.TrimSpace(name), ".")
	if p := s.pkgPath(parts[0]); p != "" {
		if len(parts) > 1 {
			if _, ok := s.symbol(p, parts[1]); !ok {
				return fmt.Sprintf("package %s has no exported %s", parts[0], parts[1])
			}
		}
		return "no documentation for " + name
	}
	v, ok := s.lookupValue(parts[:1])
	if !ok {
		if len(parts) == 1 && s.kind(parts[0]) == "" {
			return fmt.Sprintf("%s is not a package, variable, function, type or builtin of this session", parts[0])
		}
		return "no documentation for " + name
	}
	for i, f := range parts[1:] {
		t := deref(v)
		if t.IsValid() && t.Kind() == reflect.Struct {
			if fv := t.FieldByName(f); fv.IsValid() && fv.CanInterface() {
				v = fv
				continue
			}
		}
		if _, ok := selectType(v.Type(), f); ok {
			return "no documentation for " + name
		}
		members := filterPrefix(valueMembers(v), "")
		return fmt.Sprintf("%s (%s) has no field or method %s; it has: %s",
			strings.Join(parts[:i+1], "."), typeString(v), f, strings.Join(members, ", "))
	}
	return "no documentation for " + name
}

// stringStart reports whether offset cursor of src is inside a string
// literal ("..." or `...`; a rune literal counts too) and returns the
// offset of its opening quote. Comments are skipped.
func stringStart(src string, cursor int) (int, bool) {
	for i := 0; i < cursor; i++ {
		switch c := src[i]; c {
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				j := strings.IndexByte(src[i:], '\n')
				if j < 0 || i+j >= cursor {
					return 0, false // in a comment
				}
				i += j
			} else if i+1 < len(src) && src[i+1] == '*' {
				j := strings.Index(src[i+2:], "*/")
				if j < 0 || i+2+j+2 > cursor {
					return 0, false
				}
				i += 2 + j + 1
			}
		case '"', '\'', '`':
			j := i + 1
			for ; j < cursor; j++ {
				if src[j] == '\\' && c != '`' {
					j++
					continue
				}
				if src[j] == c || (src[j] == '\n' && c != '`') {
					break
				}
			}
			if j >= cursor {
				return i, true
			}
			i = j
		}
	}
	return 0, false
}

// dataKeys returns the keys the string literal opening at offset q of src
// may take when it is an argument of a data accessor of a session value
// (g.NData(", blocks[0].SrcData(", hg.NDataOf("paper", "), or nil. The
// receiver is looked up, never called: a variable, its fields, and
// indexes by constants.
func (s *Session) dataKeys(src string, q int) []string {
	i := skipSpaceBack(src, q)
	arg, first := 0, ""
	if i > 0 && src[i-1] == ',' {
		// The second argument: the first must be a string literal.
		j := skipSpaceBack(src, i-1)
		if j == 0 || src[j-1] != '"' {
			return nil
		}
		k := j - 2
		for k >= 0 && !(src[k] == '"' && (k == 0 || src[k-1] != '\\')) {
			k--
		}
		if k < 0 {
			return nil
		}
		v, err := strconv.Unquote(src[k:j])
		if err != nil {
			return nil
		}
		arg, first, i = 1, v, skipSpaceBack(src, k)
	}
	if i == 0 || src[i-1] != '(' {
		return nil
	}
	m := identStart(src, i-1)
	method := src[m : i-1]
	if m == 0 || src[m-1] != '.' || method == "" {
		return nil
	}
	recv, ok := s.receiverValue(src[exprStart(src, m-1) : m-1])
	if !ok {
		return nil
	}
	return dataKeysOf(recv, method, arg, first)
}

func skipSpaceBack(src string, i int) int {
	for i > 0 && strings.ContainsRune(" \t\r\n", rune(src[i-1])) {
		i--
	}
	return i
}

// receiverValue looks up a session variable, its fields and its elements
// at constant indexes (ds.Graph, blocks[0]) without calling anything.
func (s *Session) receiverValue(expr string) (reflect.Value, bool) {
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return reflect.Value{}, false
	}
	var eval func(ast.Expr) (reflect.Value, bool)
	eval = func(e ast.Expr) (reflect.Value, bool) {
		switch e := e.(type) {
		case *ast.ParenExpr:
			return eval(e.X)
		case *ast.Ident:
			return s.lookupValue([]string{e.Name})
		case *ast.SelectorExpr:
			v, ok := eval(e.X)
			if !ok {
				return reflect.Value{}, false
			}
			v = deref(v)
			if !v.IsValid() || v.Kind() != reflect.Struct || !token.IsExported(e.Sel.Name) {
				return reflect.Value{}, false
			}
			f := v.FieldByName(e.Sel.Name)
			return f, f.IsValid()
		case *ast.IndexExpr:
			v, ok := eval(e.X)
			lit, isLit := e.Index.(*ast.BasicLit)
			if !ok || !isLit {
				return reflect.Value{}, false
			}
			v = deref(v)
			switch {
			case !v.IsValid():
			case (v.Kind() == reflect.Slice || v.Kind() == reflect.Array) && lit.Kind == token.INT:
				n, err := strconv.Atoi(lit.Value)
				if err == nil && n >= 0 && n < v.Len() {
					return v.Index(n), true
				}
			case v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String && lit.Kind == token.STRING:
				k, err := strconv.Unquote(lit.Value)
				if err == nil {
					if x := v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())); x.IsValid() {
						return x, true
					}
				}
			}
		}
		return reflect.Value{}, false
	}
	return eval(e)
}

// dataKeysOf lists what argument arg (0 or 1; first is argument 0's value
// when arg is 1) of recv's data accessor method may be: the names of
// node or edge data, or, for a hetero form's first argument, the node or
// edge types. It calls only the receiver's listing methods (NDataNames,
// NTypes, ...); a Block, which has none, is read by reflection.
func dataKeysOf(recv reflect.Value, method string, arg int, first string) (keys []string) {
	defer func() {
		if recover() != nil { // a listing method that panics (a heterograph's NDataNames)
			keys = nil
		}
	}()
	for recv.IsValid() && recv.Kind() == reflect.Interface {
		recv = recv.Elem()
	}
	if !recv.IsValid() || (recv.Kind() == reflect.Pointer && recv.IsNil()) {
		return nil
	}
	if recv.Kind() != reflect.Pointer && recv.CanAddr() {
		recv = recv.Addr()
	}
	base := strings.TrimPrefix(strings.TrimPrefix(method, "Has"), "Set")
	of := strings.HasSuffix(base, "Of")
	base = strings.TrimSuffix(base, "Of")
	var kind string // "N" (node data) or "E" (edge data)
	switch base {
	case "NData", "SrcData", "DstData":
		kind = "N"
	case "EData":
		kind = "E"
	default:
		return nil
	}
	mv := recv.MethodByName(method)
	if !mv.IsValid() {
		return nil
	}
	strArgs := 0
	for i := 0; i < mv.Type().NumIn(); i++ {
		if mv.Type().In(i).Kind() == reflect.String {
			strArgs++
		}
	}
	call := func(name string, args ...string) []string {
		m := recv.MethodByName(name)
		if !m.IsValid() || m.Type().NumIn() != len(args) || m.Type().NumOut() != 1 {
			return nil
		}
		in := make([]reflect.Value, len(args))
		for i, a := range args {
			in[i] = reflect.ValueOf(a)
		}
		out := m.Call(in)[0]
		if out.Kind() != reflect.Slice || out.Type().Elem().Kind() != reflect.String {
			return nil
		}
		names := make([]string, out.Len())
		for i := range names {
			names[i] = out.Index(i).String()
		}
		return names
	}
	typed := of || strArgs >= 2 // (ntype or etype, name)
	if typed && arg == 0 {
		if kind == "N" {
			return call("NTypes")
		}
		return call("ETypes")
	}
	if !typed && arg != 0 {
		return nil
	}
	if typed {
		if names := call(kind+"DataNamesOf", first); names != nil {
			return names
		}
		return hiddenDataKeys(recv, base, first)
	}
	if names := call(base + "Names"); names != nil {
		return names
	}
	return hiddenDataKeys(recv, base, "")
}

// hiddenDataKeys reads the keys of a block's data (graph.Block and
// graph.HeteroBlock list none) from its unexported srcdata, dstdata and
// edata fields: a map of names, or one per node type (ntypes) for a
// HeteroBlock's node data.
func hiddenDataKeys(recv reflect.Value, base, ntype string) []string {
	v := deref(recv)
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return nil
	}
	f := v.FieldByName(strings.ToLower(strings.TrimSuffix(base, "Data")) + "data")
	if !f.IsValid() {
		return nil
	}
	if f.Kind() == reflect.Slice {
		types := v.FieldByName("ntypes")
		if !types.IsValid() || types.Kind() != reflect.Slice || types.Len() != f.Len() {
			return nil
		}
		found := false
		for i := 0; i < types.Len(); i++ {
			if types.Index(i).String() == ntype {
				f, found = f.Index(i), true
				break
			}
		}
		if !found {
			return nil
		}
	}
	if f.Kind() != reflect.Map || f.Type().Key().Kind() != reflect.String {
		return nil
	}
	var keys []string
	for _, k := range f.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	return keys
}
