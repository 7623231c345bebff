// Package ptxsrc records and checks which CUDA sources a generated PTX file
// was built from: the generator (kernels/internal/genptx) writes one
// "// source NAME sha256 HEX" line per source file (the .cu and each local
// header it includes, transitively) into the PTX header, and the staleness
// test in package kernels recomputes them.
package ptxsrc

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Source is one file a PTX module was generated from and its SHA-256.
type Source struct {
	Name   string // file name relative to the kernels directory
	SHA256 string // lower-case hex
}

var includeRE = regexp.MustCompile(`(?m)^\s*#\s*include\s+"([^"]+)"`)

// Sources returns the .cu file cu (a name inside dir) and the local headers
// it includes with #include "...", transitively, each with its hash; the .cu
// first, then the headers sorted by name. A missing header is an error.
func Sources(dir, cu string) ([]Source, error) {
	seen := map[string]bool{}
	var out []Source
	var walk func(name string) error
	walk = func(name string) error {
		if seen[name] {
			return nil
		}
		seen[name] = true
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("ptxsrc: %w", err)
		}
		sum := sha256.Sum256(b)
		out = append(out, Source{Name: name, SHA256: hex.EncodeToString(sum[:])})
		for _, m := range includeRE.FindAllSubmatch(b, -1) {
			if err := walk(string(m[1])); err != nil {
				return fmt.Errorf("%s includes %s: %w", name, m[1], err)
			}
		}
		return nil
	}
	if err := walk(cu); err != nil {
		return nil, err
	}
	sort.Slice(out[1:], func(i, j int) bool { return out[1+i].Name < out[1+j].Name })
	return out, nil
}

// Line formats the header line recording s.
func Line(s Source) string { return "// source " + s.Name + " sha256 " + s.SHA256 }

// Parse returns the sources recorded in a PTX file's header (the comment
// lines before the first non-comment line).
func Parse(ptx []byte) []Source {
	var out []Source
	sc := bufio.NewScanner(bytes.NewReader(ptx))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "//") {
			break
		}
		f := strings.Fields(line)
		if len(f) == 5 && f[1] == "source" && f[3] == "sha256" {
			out = append(out, Source{Name: f[2], SHA256: f[4]})
		}
	}
	return out
}
