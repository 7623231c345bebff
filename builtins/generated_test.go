package builtins

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/builtins/internal/gen"
)

// TestGeneratedUpToDate regenerates the symbol tables (gen.Extract, as the
// gensym command does) and the doc table in memory and fails when the
// committed files differ: run `go generate ./builtins/` to fix it.
func TestGeneratedUpToDate(t *testing.T) {
	pkgs, err := gen.Packages("gen.go")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"docs_gen.go": true}
	for _, ip := range pkgs {
		name := gen.SymbolFileName(ip)
		want[name] = true
		src, err := gen.Extract(ip)
		if err != nil {
			t.Error(err)
			continue
		}
		compare(t, name, src)
	}
	root, modPath, err := gen.Module(".")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := gen.Docs(root, modPath, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "docs_gen.go", docs)

	// A generated symbol file whose package left gen.go is stale too.
	files, _ := filepath.Glob(gen.SymbolFileName(modPath) + "*")
	others, _ := filepath.Glob(strings.TrimSuffix(gen.SymbolFileName(modPath), ".go") + "-*.go")
	for _, f := range append(files, others...) {
		if !want[f] {
			t.Errorf("%s is not produced by any go:generate line in gen.go: delete it", f)
		}
	}
}

func compare(t *testing.T, name string, got []byte) {
	t.Helper()
	have, err := os.ReadFile(name)
	if err != nil {
		t.Errorf("%s: %v (run go generate ./builtins/)", name, err)
		return
	}
	if !bytes.Equal(have, got) {
		t.Errorf("%s is stale: run go generate ./builtins/", name)
	}
}

func TestSymbols(t *testing.T) {
	for _, k := range []string{"fmt/fmt", "github.com/gnnrepl/gnnrepl/runctx/runctx"} {
		if Symbols[k] == nil {
			t.Errorf("Symbols[%q] missing", k)
		}
	}
	if Docs["runctx.Err"] == "" || !strings.HasPrefix(Docs["runctx.Err"], "func Err() error") {
		t.Errorf("Docs[runctx.Err] = %q", Docs["runctx.Err"])
	}
	if BLAS() == "" {
		t.Error("BLAS() is empty")
	}
}

// TestExcluded checks that every name in gen.Excluded has a reason and is in
// neither the symbol table nor the doc table a session loads.
func TestExcluded(t *testing.T) {
	for ip, list := range gen.Excluded {
		pkg := ip[strings.LastIndex(ip, "/")+1:]
		syms := Symbols[ip+"/"+pkg]
		if syms == nil {
			t.Errorf("Symbols[%q] missing", ip+"/"+pkg)
			continue
		}
		for _, e := range list {
			if strings.TrimSpace(e.Why) == "" {
				t.Errorf("gen.Excluded[%q]: %s has no reason", ip, e.Name)
			}
			if _, ok := syms[e.Name]; ok {
				t.Errorf("%s.%s is excluded but in the symbol table", pkg, e.Name)
			}
			if _, ok := Docs[pkg+"."+e.Name]; ok {
				t.Errorf("%s.%s is excluded but in the doc table", pkg, e.Name)
			}
		}
	}
	if Symbols["github.com/gnnrepl/gnnrepl/tensor/tensor"]["MatMul"].IsValid() == false {
		t.Error("tensor.MatMul missing from the symbol table")
	}
}
