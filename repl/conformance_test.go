package repl

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/builtins"
	"github.com/traefik/yaegi/interp"
)

// The conformance corpus (testdata/conformance/*.go) holds small Go
// programs, each a package main whose main prints its results. The compiler
// is the oracle: `go test -run TestConformance -update` runs each with
// `go run` and stores its standard output and error, with a hash of the
// program, in golden.json. TestConformance then types each program into a
// fresh session as a user would (each top-level declaration, then each
// top-level statement of main, as a cell) and requires the same output.
// The programs that still differ are listed, one line each with the
// workaround, in KNOWN_DIFFERENCES.md; the test requires that list to be
// exactly the failing set (and README.md's interpreter limits follow it).

var update = flag.Bool("update", false, "regenerate testdata/conformance/golden.json with go run")

const conformanceDir = "testdata/conformance"

type goldenEntry struct {
	Hash   string `json:"hash"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

func programHash(src []byte) string {
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:8])
}

// programCells splits a program into the cells a user would type: its
// imports and declarations other than main in one cell (types with their
// methods, functions that call each other), then the top-level statements
// of main, one per cell.
func programCells(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	text := func(n ast.Node) string {
		return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}
	var decls []string
	var body []ast.Stmt
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			body = fd.Body.List
			continue
		}
		decls = append(decls, text(d))
	}
	var cells []string
	if len(decls) > 0 {
		cells = append(cells, strings.Join(decls, "\n\n"))
	}
	for _, st := range body {
		cells = append(cells, text(st))
	}
	return cells, nil
}

// conformanceSymbols is the standard library part of the session's
// symbol tables (the engine's packages are not needed and slow a session's
// start), with yaegi's "." entry: stdlib.MapTypes, the interfaces (Stringer,
// error, ...) that fmt, errors and others look for in interpreted values,
// and its "github.com/traefik/yaegi/yaegi" hook, the conversions of
// unsafe.Pointer.
var conformanceSymbols = sync.OnceValue(func() interp.Exports {
	x := interp.Exports{}
	for k, v := range builtins.Symbols {
		if k == "." || k == "github.com/traefik/yaegi/yaegi" || !strings.Contains(strings.SplitN(k, "/", 2)[0], ".") {
			x[k] = v
		}
	}
	return x
})

// stdoutFile and stderrFile are descriptors 1 and 2 (package variables, so
// that no finalizer closes them): under go test -json the testing package
// sets os.Stderr = os.Stdout, and a program's os.Stderr must be descriptor 2
// as in the shell.
var (
	stdoutFile = os.NewFile(1, "/dev/stdout")
	stderrFile = os.NewFile(2, "/dev/stderr")
)

// runInSession types the program's cells into a new session and returns
// what it wrote on its standard output and error; a cell's error is
// written on stderr as the front end shows it, and ends the run. As in
// the shell, the session writes to descriptors 1 and 2, and those are
// captured the way the Jupyter kernel captures them (CaptureFDs), so that
// compiled code writing to os.Stdout or os.Stderr is seen too.
func runInSession(name string, src []byte) (stdout, stderr string) {
	cells, err := programCells(name, src)
	if err != nil {
		return "", "parse: " + err.Error()
	}
	out, errOut := &syncBuffer{}, &syncBuffer{}
	c, err := CaptureFDs(out, errOut)
	if err != nil { // not Linux, macOS or FreeBSD: compiled writes to os.Stderr are missed
		errOut.Write([]byte(runCells(cells, out, errOut)))
		return out.String(), errOut.String()
	}
	savedStdout, savedStderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = stdoutFile, stderrFile
	cellErr := runCells(cells, os.Stdout, os.Stderr)
	os.Stdout, os.Stderr = savedStdout, savedStderr
	if err := c.Restore(); err != nil {
		fmt.Fprintf(errOut, "\n[restore: %v]\n", err)
	}
	errOut.Write([]byte(cellErr))
	return out.String(), errOut.String()
}

// runCells evaluates cells in a new session writing to stdout and stderr,
// and returns the first failing cell's error as the front end shows it, or
// "".
func runCells(cells []string, stdout, stderr io.Writer) string {
	s, err := New(Options{Stdout: stdout, Stderr: stderr, Stdin: strings.NewReader(""),
		Symbols: []interp.Exports{conformanceSymbols()}, InterruptGrace: time.Second})
	if err != nil {
		return "session: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, c := range cells {
		if _, err := s.EvalSource(ctx, fmt.Sprintf("In[%d]", i+1), c); err != nil {
			return fmt.Sprintf("\n[cell %d: %v]\n", i+1, err)
		}
	}
	return ""
}

func conformancePrograms(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(conformanceDir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

func readGolden(t *testing.T) map[string]goldenEntry {
	golden := map[string]goldenEntry{}
	b, err := os.ReadFile(filepath.Join(conformanceDir, "golden.json"))
	if err != nil && !*update {
		t.Fatalf("%v (run go test -run TestConformance -update)", err)
	}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &golden); err != nil {
			t.Fatal(err)
		}
	}
	return golden
}

// updateGolden runs every program whose golden entry is missing or stale
// with go run (two at a time) and writes golden.json.
func updateGolden(t *testing.T, files []string, golden map[string]goldenEntry) {
	next := map[string]goldenEntry{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base, h := filepath.Base(f), programHash(src)
		if g, ok := golden[base]; ok && g.Hash == h {
			next[base] = g
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var o, e bytes.Buffer
			cmd := exec.Command("go", "run", base)
			cmd.Dir = conformanceDir
			cmd.Stdout, cmd.Stderr = &o, &e
			if err := cmd.Run(); err != nil {
				t.Errorf("go run %s: %v\n%s", base, err, e.String())
				return
			}
			mu.Lock()
			next[base] = goldenEntry{Hash: h, Stdout: o.String(), Stderr: e.String()}
			mu.Unlock()
		}()
	}
	wg.Wait()
	b, err := json.MarshalIndent(next, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(conformanceDir, "golden.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	for k, v := range next {
		golden[k] = v
	}
	for k := range golden {
		if _, ok := next[k]; !ok {
			delete(golden, k)
		}
	}
}

// knownDifferences reads the program names of KNOWN_DIFFERENCES.md's
// list items ("- name.go: what differs; workaround").
func knownDifferences(t *testing.T) map[string]bool {
	f, err := os.Open(filepath.Join(conformanceDir, "KNOWN_DIFFERENCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "- ") {
			continue
		}
		name, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), ":")
		if !ok {
			t.Fatalf("KNOWN_DIFFERENCES.md: %q is not `- name.go: difference; workaround`", line)
		}
		known[strings.Trim(name, "`")] = true
	}
	return known
}

func TestConformance(t *testing.T) {
	files := conformancePrograms(t)
	if len(files) == 0 {
		t.Fatal("no programs in " + conformanceDir)
	}
	golden := readGolden(t)
	if *update {
		updateGolden(t, files, golden)
	}
	var stale []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if g, ok := golden[filepath.Base(f)]; !ok || g.Hash != programHash(src) {
			stale = append(stale, filepath.Base(f))
		}
	}
	if len(stale) > 0 {
		t.Fatalf("golden.json is stale for %v: run go test ./repl -run TestConformance -update", stale)
	}
	if len(golden) != len(files) {
		t.Fatalf("golden.json has %d entries for %d programs: run go test ./repl -run TestConformance -update", len(golden), len(files))
	}
	known := knownDifferences(t)
	only := os.Getenv("CONFORMANCE_ONLY") // a name pattern, to look at some programs
	var failed []string
	for _, f := range files {
		base := filepath.Base(f)
		if only != "" {
			if ok, _ := filepath.Match(only, base); !ok {
				continue
			}
		}
		src, _ := os.ReadFile(f)
		g := golden[base]
		stdout, stderr := runInSession(base, src)
		if stdout == g.Stdout && stderr == g.Stderr {
			if known[base] {
				t.Errorf("%s now runs as compiled: remove it from KNOWN_DIFFERENCES.md (and README.md's interpreter limits)", base)
			}
			continue
		}
		failed = append(failed, base)
		if !known[base] || testing.Verbose() {
			t.Logf("%s differs:\n--- go run stdout:\n%s--- session stdout:\n%s--- go run stderr:\n%s--- session stderr:\n%s",
				base, g.Stdout, stdout, g.Stderr, stderr)
		}
		if !known[base] {
			t.Errorf("%s: the session's output differs from go run's (fix it, or list it in KNOWN_DIFFERENCES.md with the workaround)", base)
		}
	}
	if only == "" {
		for k := range known {
			if _, ok := golden[k]; !ok {
				t.Errorf("KNOWN_DIFFERENCES.md lists %s, which is not in the corpus", k)
			}
		}
	}
	t.Logf("conformance: %d of %d programs run as compiled; differing: %s", len(files)-len(failed), len(files), strings.Join(slices.Sorted(slices.Values(failed)), " "))
}
