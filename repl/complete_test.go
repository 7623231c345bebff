package repl

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/builtins"
)

// newPreludeSession is a session with the standard prelude (ds, g, model,
// ...) on the shared data's Cora or its synthetic stand-in.
func newPreludeSession(t *testing.T) *Session {
	t.Helper()
	s, _, _ := newSession(t)
	eval(t, s, builtins.Prelude[len(builtins.PreludeImports):])
	return s
}

// TestCompleteCompositeLiteral: inside an option struct's literal, a key
// position completes the struct's fields; a value position completes
// names as usual; a block is not a literal.
func TestCompleteCompositeLiteral(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "type point struct{ Alpha, Beta int; gamma int }\nmyVar := 3")
	for _, c := range []struct {
		src   string
		want  []string
		start int
	}{
		{"nn.GCNOptions{Hid", []string{"HiddenFeats"}, 14},
		{"m := nn.NewGCN(nn.GCNOptions{InFeats: 3, Hid", []string{"HiddenFeats"}, 41},
		{"o := &nn.GCNOptions{\n\tInFeats: ds(1, 2),\n\tOut", []string{"OutFeats"}, 42},
		{"nn.GCNOptions{In", []string{"InFeats", "InputDropout"}, 14},
		{"optim.AdamOptions{LR: 0.01, Weig", []string{"WeightDecay"}, 28},
		{"point{Al", []string{"Alpha"}, 6},
		{"p := point{Alpha: 1, ", []string{"Alpha", "Beta"}, 21},
		{"nn.GCNOptions{InFeats: myV", []string{"myVar"}, 23}, // a value
		{"if myVar > 0 {myV", []string{"myVar"}, 14},          // a block
	} {
		got, start, end := s.Complete(c.src, len(c.src))
		if !reflect.DeepEqual(got, c.want) || start != c.start || end != len(c.src) {
			t.Errorf("Complete(%q) = %v [%d,%d), want %v [%d,%d)", c.src, got, start, end, c.want, c.start, len(c.src))
		}
	}
}

// TestCompleteChainedCall: after a call or an index in a selector chain,
// the members of the result's static type, without calling anything.
func TestCompleteChainedCall(t *testing.T) {
	s := newPreludeSession(t)
	eval(t, s, "calls := 0\nfunc mk() *tensor.Tensor { calls++; return tensor.Zeros(2) }\nts := []*tensor.Tensor{tensor.Zeros(1)}")
	for _, c := range []struct {
		src  string
		want []string
	}{
		{`ds.Graph.NData("feat").Sh`, []string{"Shape"}},
		{`g.NData("feat").Resh`, []string{"Reshape"}},
		{`x := tensor.Zeros(2, 3).Si`, []string{"Sigmoid", "Size"}},
		{`mk().Num`, []string{"Numel"}},
		{`ts[0].DTy`, []string{"DType"}},
		{`ds.Graph.NData(strings.ToLower("FEAT")).Dev`, []string{"Device"}},
		{`g.Edges().Sh`, []string{"Shape"}},
	} {
		got, _, _ := s.Complete(c.src, len(c.src))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Complete(%q) = %v, want %v", c.src, got, c.want)
		}
	}
	if got := eval(t, s, "calls"); got != "0" {
		t.Errorf("completion called mk: calls = %s", got)
	}
	// Nothing for what has no static type here.
	if got, _, _ := s.Complete("(1 + 2).X", 9); got != nil {
		t.Errorf("Complete of a parenthesised expression = %v", got)
	}
}

// TestCompleteHidesRenamedFields: a session struct's unexported fields
// (which yaegi renames X<name>) are not offered.
func TestCompleteHidesRenamedFields(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "type rec struct{ Name string; secret int }\nr := rec{}")
	if got, _, _ := s.Complete("r.", 2); !reflect.DeepEqual(got, []string{"Name"}) {
		t.Errorf("Complete(r.) = %v, want [Name]", got)
	}
}

func TestLineEndWriter(t *testing.T) {
	var b strings.Builder
	w := NewLineEndWriter(&b)
	w.EndLine() // nothing written: nothing to end
	w.Write([]byte("a\n"))
	w.EndLine()
	w.Write([]byte("partial"))
	if w.AtLineStart() {
		t.Error("AtLineStart after an open line")
	}
	w.EndLine()
	w.EndLine()
	if b.String() != "a\npartial\n" || !w.AtLineStart() {
		t.Errorf("got %q", b.String())
	}
}

// TestCompleteDataKeys: inside the string argument of a data accessor the
// keys of that graph's or block's data are offered (g.NData("fe -> feat),
// replacing the string's text so far; the node type in a hetero form's
// first argument; elsewhere in a string, nothing (not package names).
func TestCompleteDataKeys(t *testing.T) {
	s := newPreludeSession(t)
	eval(t, s, `b, _ := graph.NewBlock([]int64{0, 1, 2}, 1, []int64{0, 2}, []int64{1, 2}, nil)
_ = b.SetSrcData("hidden", tensor.Zeros(3, 2))
_ = b.SetDstData("label", tensor.Zeros(1))
blocks := []*graph.Block{b}
hg, _ := graph.NewHetero(map[string]int{"paper": 2, "author": 1}, map[graph.CanonicalEType]graph.EdgeList{{"author", "writes", "paper"}: {Src: []int64{0}, Dst: []int64{1}}})
_ = hg.SetNDataOf("paper", "year", tensor.Zeros(2))
type holder struct{ G *graph.Graph }
h := holder{g}`)
	names := eval(t, s, `fmt.Sprint(g.NDataNames())`)
	for _, c := range []struct {
		src  string
		want []string
	}{
		{`g.NData("fe`, []string{"feat"}},
		{`x := g.NData( "fe`, []string{"feat"}},
		{`g.HasNData("la`, []string{"label"}},
		{`ds.Graph.NData("fe`, []string{"feat"}},
		{`h.G.NData("fe`, []string{"feat"}},
		{`b.SrcData("hi`, []string{"hidden"}},
		{`b.DstData("`, []string{"label"}},
		{`blocks[0].SrcData("`, []string{"hidden"}},
		{`hg.NDataOf("pa`, []string{"paper"}},
		{`hg.NDataOf("paper", "`, []string{"year"}},
		{`hg.NDataOf("author", "`, nil},
		{`x := "tens`, nil},                // not package names
		{`fmt.Println("g.NData(\"fe`, nil}, // a string inside a string
		{`g.NData("feat") + "te`, nil},
		{"`raw tens", nil},
		{`undefinedVar.NData("fe`, nil},
	} {
		got, start, end := s.Complete(c.src, len(c.src))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Complete(%q) = %v, want %v", c.src, got, c.want)
		}
		if q := strings.LastIndexAny(c.src, "\"`"); got != nil && (start != q+1 || end != len(c.src)) {
			t.Errorf("Complete(%q) replaces [%d, %d), want [%d, %d)", c.src, start, end, q+1, len(c.src))
		}
	}
	if got, _, _ := s.Complete(`g.NData("`, 9); strconv.Quote(fmt.Sprint(got)) != names {
		t.Errorf(`Complete(g.NData(") = %v, want %s`, got, names)
	}
	// Outside strings, completion is as before, after a closed string too.
	if got, _, _ := s.Complete(`g.NData("feat").Sh`, 18); !reflect.DeepEqual(got, []string{"Shape"}) {
		t.Errorf("after a closed string: %v", got)
	}
	if got, _, _ := s.Complete("// a \"comment\n\"x\" + tens", 24); !reflect.DeepEqual(got, []string{"tensor"}) {
		t.Errorf("after a comment with a quote: %v", got)
	}
}
