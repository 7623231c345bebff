package repl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/builtins"
)

// TestHelpExamples runs every example that :help names (the
// parenthesised lists of the :doc line, and the others' arguments) in a
// session with the standard prelude: each must work.
func TestHelpExamples(t *testing.T) {
	s := newPreludeSession(t)
	run := func(line string) (string, error) {
		var out strings.Builder
		_, err := s.RunCommand(context.Background(), line, &out)
		return out.String(), err
	}
	help, err := run(":help")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := findCommand(":doc")
	var names []string
	for _, m := range regexp.MustCompile(`\(([^)]*)\)`).FindAllStringSubmatch(doc.help, -1) {
		names = append(names, strings.Split(m[1], ", ")...)
	}
	if len(names) < 6 || !strings.Contains(help, "tensor.Tensor.Reshape") {
		t.Fatalf(":doc examples %v; :help\n%s", names, help)
	}
	for _, n := range names {
		if out, err := run(":doc " + n); err != nil || strings.TrimSpace(out) == "" {
			t.Errorf(":doc %s: %v, %q", n, err, out)
		}
	}
	for line, want := range map[string]string{
		":doc tensor.Tensor.Reshape":     "func (t *Tensor) Reshape(shape ...int) *Tensor",
		":doc tensor.Tensor":             "Methods (:doc tensor.Tensor.NAME):\n\tfunc (t *Tensor) Add(y *Tensor) *Tensor",
		":doc model.Forward":             "func (m *GraphSAGE) Forward(",
		":doc ds.NumClasses":             "var ds.NumClasses int = ",
		":doc nn.GCNOptions.HiddenFeats": "field HiddenFeats int of nn.GCNOptions",
		":time 1 + 1":                    "time: ",
		":vars":                          "model ",
		":mem":                           "",
	} {
		if out, err := run(line); err != nil || !strings.Contains(out, want) {
			t.Errorf("%s: %v, %q; want %q", line, err, out, want)
		}
	}
	f := filepath.Join(t.TempDir(), "f.go")
	os.WriteFile(f, []byte("loaded := 7\n"), 0o644)
	if _, err := run(":load " + f); err != nil || eval(t, s, "loaded") != "7" {
		t.Errorf(":load: %v", err)
	}
	// A value's missing member: the error lists what there is.
	if _, err := run(":doc model.W"); err == nil || !strings.Contains(err.Error(), "model (*nn.GraphSAGE) has no field or method W") || !strings.Contains(err.Error(), "Layers") {
		t.Errorf(":doc model.W: %v", err)
	}
	if _, err := run(":doc tensor.NoSuch"); err == nil || !strings.Contains(err.Error(), "package tensor has no exported NoSuch") {
		t.Errorf(":doc tensor.NoSuch: %v", err)
	}
	// A value with a W field resolves.
	eval(t, s, "type lin struct{ W *tensor.Tensor }\nlayer := lin{W: tensor.Zeros(2, 2)}")
	if out, err := run(":doc layer.W"); err != nil || !strings.Contains(out, "var layer.W *tensor.Tensor") {
		t.Errorf(":doc layer.W: %v %q", err, out)
	}
}

// TestMustIdiom: the error idiom :help and the notebooks show, one line
// that is the value or fails the cell with the error. It needs package
// must in the symbol tables (go generate ./builtins/).
func TestMustIdiom(t *testing.T) {
	if _, ok := builtins.Symbols["github.com/gnnrepl/gnnrepl/must/must"]; !ok {
		t.Skip("package must is not in the builtins symbol tables yet (go generate ./builtins/)")
	}
	s := newPreludeSession(t)
	eval(t, s, `import "github.com/gnnrepl/gnnrepl/must"`)
	if got := eval(t, s, "gg := must.Graph(graph.New(3, []int64{0, 1}, []int64{1, 2}))\ngg.NumEdges()"); got != "2" {
		t.Errorf("must.Graph: %q", got)
	}
	_, err := s.Eval(context.Background(), `bad := must.Dataset(datasets.LoadPlanetoid("nope", ""))`)
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), `unknown Planetoid dataset "nope"`) || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("must.Dataset with an error: %v", err)
	}
	// The variable holds no value (yaegi may have declared it, as nil).
	if r, err := s.Eval(context.Background(), "bad == nil"); err == nil && r.Text != "true" {
		t.Errorf("bad = %s after the failing cell", r.Text)
	}
}

// :time of code that does not compile reports the error and no time (it
// never ran); commands without arguments refuse one instead of ignoring it.
func TestCommandArguments(t *testing.T) {
	s := newPreludeSession(t)
	var out strings.Builder
	_, err := s.RunCommand(context.Background(), ":time undefinedName + 1", &out)
	if err == nil || strings.Contains(out.String(), "time: ") {
		t.Fatalf(":time of a compile error: err %v, output %q", err, out.String())
	}
	for _, line := range []string{":vars extra", ":mem extra", ":reset now"} {
		out.Reset()
		if _, err := s.RunCommand(context.Background(), line, &out); err == nil || !strings.Contains(err.Error(), "takes no argument") {
			t.Errorf("%s: err %v", line, err)
		}
	}
}

// TestDocPackageMembers: :doc PKG lists the package's members after its
// comment, as go doc does (a new user could not find must's functions).
func TestDocPackageMembers(t *testing.T) {
	s := newPreludeSession(t)
	d, ok := s.Doc("must")
	if !ok || !strings.Contains(d, "Members (:doc must.NAME):") || !strings.Contains(d, " Dataset ") || !strings.Contains(d, " OK") {
		t.Fatalf(":doc must = %q", d)
	}
}
