package kernels

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/kernels/internal/ptxsrc"
)

var generatedRE = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// TestPTXUpToDate checks, without nvcc or a GPU, that every kernels/*.cu has
// an embedded PTX module generated from its current text (and from the
// current text of each header it includes), and that no PTX module is left
// without a source. Fix a failure with `go generate ./kernels/...`.
func TestPTXUpToDate(t *testing.T) {
	cus, err := filepath.Glob("*.cu")
	if err != nil || len(cus) == 0 {
		t.Fatalf("no .cu sources found (err %v)", err)
	}
	have := map[string]bool{}
	for _, m := range PTXModules() {
		have[m] = true
	}
	for _, cu := range cus {
		name := strings.TrimSuffix(cu, ".cu")
		if !have[name] {
			t.Errorf("%s has no ptx/%s.ptx: run go generate ./kernels/...", cu, name)
			continue
		}
		delete(have, name)
		ptx, err := PTX(name)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(ptx), "\n")
		if !generatedRE.MatchString(first) {
			t.Errorf("ptx/%s.ptx: first line %q is not a `// Code generated ... DO NOT EDIT.` line", name, first)
		}
		want, err := ptxsrc.Sources(".", cu)
		if err != nil {
			t.Fatal(err)
		}
		got := ptxsrc.Parse(ptx)
		gotm := map[string]string{}
		for _, s := range got {
			gotm[s.Name] = s.SHA256
		}
		for _, s := range want {
			switch h, ok := gotm[s.Name]; {
			case !ok:
				t.Errorf("ptx/%s.ptx records no hash of %s: stale, run go generate ./kernels/...", name, s.Name)
			case h != s.SHA256:
				t.Errorf("ptx/%s.ptx is stale: %s has sha256 %s, the PTX was generated from %s; run go generate ./kernels/...",
					name, s.Name, s.SHA256[:12], h[:min(12, len(h))])
			}
			delete(gotm, s.Name)
		}
		for n := range gotm {
			t.Errorf("ptx/%s.ptx records %s, which %s no longer includes: run go generate ./kernels/...", name, n, cu)
		}
	}
	for m := range have {
		t.Errorf("ptx/%s.ptx has no source %s.cu: delete it or restore the source", m, m)
	}
}

// TestPTXHashDetectsEdit checks that the hash check notices a one-byte edit.
func TestPTXHashDetectsEdit(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("cast.cu")
	if err != nil {
		t.Fatal(err)
	}
	inc, err := os.ReadFile("common.cuh")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "cast.cu"), append(b, ' '), 0o644)
	os.WriteFile(filepath.Join(dir, "common.cuh"), inc, 0o644)
	edited, err := ptxsrc.Sources(dir, "cast.cu")
	if err != nil {
		t.Fatal(err)
	}
	ptx, _ := PTX("cast")
	rec := ptxsrc.Parse(ptx)
	if len(rec) != 2 || rec[0].Name != "cast.cu" {
		t.Fatalf("cast.ptx records %v, want cast.cu and common.cuh", rec)
	}
	if rec[0].SHA256 == edited[0].SHA256 {
		t.Error("an edited cast.cu hashes like the original")
	}
	if rec[1] != edited[1] {
		t.Errorf("unchanged common.cuh: recorded %v, computed %v", rec[1], edited[1])
	}
}
