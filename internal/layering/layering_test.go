package layering

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/gnnrepl/gnnrepl"

// Layers, lowest first (see the package doc).
const (
	engine = iota
	builtins
	session
	frontEnd
	program
)

var layerNames = []string{"engine", "builtins", "session (repl)", "front end", "program"}

// layer is the layer of a package of the module, given its path relative
// to the module ("" for the root).
func layer(rel string) int {
	under := func(dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }
	switch {
	case under("cmd"), under("bench"):
		return program
	case under("kernel"):
		return frontEnd
	case under("repl"):
		return session
	case under("builtins"):
		return builtins
	}
	return engine
}

// utility lists the leaf packages of the module any layer may import:
// they import nothing of the module and know nothing of tensors or
// sessions.
var utility = map[string]bool{"internal/atomicfile": true, "internal/rowopt": true}

// allowed reports whether a package of layer from may import one of layer
// to: never upward, and front ends only the session.
func allowed(from, to int) bool {
	if from == frontEnd {
		return to == frontEnd || to == session
	}
	return to <= from
}

type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
	Error                              *struct{ Err string }
}

// listPackages runs go list over the module.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}

// violations returns one line per import of pkgs that breaks the rules.
func violations(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			continue
		}
		rel = strings.TrimPrefix(rel, "/")
		from := layer(rel)
		check := func(kind string, imports []string) {
			for _, imp := range imports {
				irel, ok := strings.CutPrefix(imp, module)
				if !ok || (irel != "" && irel[0] != '/') {
					continue
				}
				irel = strings.TrimPrefix(irel, "/")
				if to := layer(irel); !allowed(from, to) && !utility[irel] {
					bad = append(bad, fmt.Sprintf("%s (%s) %simports %s (%s)", rel, layerNames[from], kind, irel, layerNames[to]))
				}
			}
		}
		check("", p.Imports)
		check("test-", p.TestImports)
		check("test-", p.XTestImports)
	}
	return bad
}

// TestImportRules: no package of the module imports a higher layer, and
// the front ends import no engine or builtins package (see the package
// doc).
func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	for _, p := range pkgs {
		if p.Error != nil {
			t.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestRulesCatchUpwardImports: the rules flag the imports they are meant to
// (so that TestImportRules cannot pass by checking nothing).
func TestRulesCatchUpwardImports(t *testing.T) {
	m := func(rel string) string { return module + "/" + rel }
	pkgs := []pkg{
		{ImportPath: m("tensor"), Imports: []string{m("kernels"), m("repl")}},
		{ImportPath: m("featstore"), XTestImports: []string{m("builtins")}},
		{ImportPath: m("builtins/display"), Imports: []string{m("graph"), m("kernel")}},
		{ImportPath: m("repl"), Imports: []string{m("builtins"), m("runctx"), m("kernel")}},
		{ImportPath: m("kernel"), Imports: []string{m("repl"), m("datasets"), m("builtins/display"), "fmt"}},
		{ImportPath: m("kernel/internal/gnnreplkernel"), Imports: []string{m("kernel")}},
		{ImportPath: m("cmd/gnnrepl"), Imports: []string{m("kernel"), m("builtins"), m("kernels")}},
	}
	want := []string{
		"tensor (engine) imports repl (session (repl))",
		"featstore (engine) test-imports builtins (builtins)",
		"builtins/display (builtins) imports kernel (front end)",
		"repl (session (repl)) imports kernel (front end)",
		"kernel (front end) imports datasets (engine)",
		"kernel (front end) imports builtins/display (builtins)",
	}
	got := violations(pkgs)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
