//go:build unix

package repl

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/build"
	"go/build/constraint"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestGoTestSuite judges the session by Go's own test programs: the plain
// `// run` programs of $GOROOT/test, each of which checks itself. As Go's
// test driver (cmd/internal/testdir, the successor of test/run.go) does,
// a program passes when it exits 0 and its standard output and error,
// together in one stream, are exactly the .out file beside it, or empty
// when there is none. Each program runs as `gnnrepl run FILE.go` in
// $GOROOT/test, with a per-program timeout, its process group killed when
// it ends or times out.
//
// Which programs: files whose recipe (the first non-empty line that is not
// a build constraint) is exactly `// run`, with no arguments or flags, and
// whose build constraints hold for this GOOS/GOARCH with the gc toolchain.
// `// run ARGS`, `// rundir`, `// runoutput`, `// buildrun`, errorcheck and
// compile programs are not this suite's.
//
// Two lists in testdata/gotest say what is expected:
//
//   - excluded.txt: programs not run at all, each with its reason: they test
//     something no interpreter can meet (inlining, escape analysis, GC or
//     finalizer timing, stack layout, the linker, compiler-specific
//     behaviour).
//   - failures.txt: the known failures, `path: reason`, regenerated with
//     -gotest.update. A failing program not listed fails the test; a
//     listed one that passes is reported, so that the list can shrink.
//     Each program runs once, with a time limit (90 s) far above what the
//     programs that pass need (the slowest, ken/divconst.go, 17 s alone and
//     about 35 s on a loaded machine), so that load cannot turn a pass into
//     a regression; nothing is retried.
//
// Commands:
//
//	go test ./repl -run TestGoTestSuite                      # CI: ken/ and the top level
//	GNNREPL_GOTEST=all go test ./repl -run TestGoTestSuite -timeout 60m
//	go test ./repl -run TestGoTestSuite -args -gotest.update # rewrite failures.txt
//
// -gotest.dirs (or GNNREPL_GOTEST) is a comma-separated list of
// directories of $GOROOT/test ("." is the top level) or "all", the
// directories Go's own driver runs. -gotest.verify (or
// GNNREPL_GOTEST_VERIFY=1) also runs each program with `go run` and
// requires the expectation to hold for the compiled program.
var (
	goTestUpdate  = flag.Bool("gotest.update", false, "TestGoTestSuite: rewrite testdata/gotest/failures.txt with the programs that fail")
	goTestVerify  = flag.Bool("gotest.verify", false, "TestGoTestSuite: also run each program with go run and check the expectation")
	goTestDirs    = flag.String("gotest.dirs", "", `TestGoTestSuite: comma-separated directories of $GOROOT/test ("." is the top level), or "all" (default $GNNREPL_GOTEST, else "ken,.")`)
	goTestRun     = flag.String("gotest.run", "", "TestGoTestSuite: run only the programs whose path (ken/chan.go) matches this regexp")
	goTestTimeout = flag.Duration("gotest.timeout", 90*time.Second, "TestGoTestSuite: time limit of one program")
	goTestJobs    = flag.Int("gotest.j", 2, "TestGoTestSuite: programs run at once")
	goTestBin     = flag.String("gotest.bin", "", "TestGoTestSuite: a gnnrepl binary to use instead of building one")
)

const (
	goTestFailuresFile = "testdata/gotest/failures.txt"
	goTestExcludedFile = "testdata/gotest/excluded.txt"
)

// goTestAllDirs are the directories cmd/internal/testdir runs (its dirs).
var goTestAllDirs = []string{".", "ken", "chan", "interface", "internal/runtime/sys", "syntax", "dwarf", "fixedbugs", "codegen", "abi", "typeparam", "typeparam/mdempsky", "arenas", "simd"}

// goTestProgram is one `// run` program: its path relative to
// $GOROOT/test, slash-separated, and the output it must print.
type goTestProgram struct {
	path string
	want string
}

// goTestResult is what one run of a program gave.
type goTestResult struct {
	pass   bool
	reason string // one line, for a failure
	dur    time.Duration
}

func TestGoTestSuite(t *testing.T) {
	root := goTestRoot(t)
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		t.Skipf("no Go test programs at %s (GOROOT/test is not installed)", root)
	}
	dirs := goTestSelectedDirs()
	var filter *regexp.Regexp
	if *goTestRun != "" {
		filter = regexp.MustCompile(*goTestRun)
	}
	excluded, err := readGoTestList(goTestExcludedFile)
	if err != nil {
		t.Fatal(err)
	}
	known, err := readGoTestList(goTestFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	for p, why := range excluded {
		if why == "" {
			t.Errorf("%s: %s has no reason", goTestExcludedFile, p)
		}
		if _, ok := known[p]; ok {
			t.Errorf("%s is in both %s and %s", p, goTestExcludedFile, goTestFailuresFile)
		}
	}

	var progs []goTestProgram
	inRun := map[string]bool{} // every selected program, excluded ones too
	for _, d := range dirs {
		ps, err := goTestPrograms(root, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if filter != nil && !filter.MatchString(p.path) {
				continue
			}
			inRun[p.path] = true
			if _, ok := excluded[p.path]; !ok {
				progs = append(progs, p)
			}
		}
	}
	for _, list := range []map[string]string{excluded, known} {
		for p := range list {
			if goTestDirSelected(p, dirs) && (filter == nil || filter.MatchString(p)) && !inRun[p] {
				t.Logf("listed but not a `// run` program of this Go: %s", p)
			}
		}
	}
	if len(progs) == 0 {
		t.Skip("no programs selected")
	}

	bin := *goTestBin
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "gnnrepl")
		build := exec.Command("go", "build", "-o", bin, "github.com/gnnrepl/gnnrepl/cmd/gnnrepl")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build gnnrepl: %v\n%s", err, out)
		}
	}
	// An empty data directory: every session's prelude then uses the
	// synthetic graph, whatever the machine's cache holds.
	data := t.TempDir()
	verify := *goTestVerify || os.Getenv("GNNREPL_GOTEST_VERIFY") == "1"

	start := time.Now()
	results := make([]goTestResult, len(progs))
	runAll := func(idx []int, timeout time.Duration) {
		jobs := make(chan int)
		var wg sync.WaitGroup
		for range max(1, *goTestJobs) {
			wg.Go(func() {
				for i := range jobs {
					results[i] = runGoTestProgram(root, progs[i], timeout, []string{bin, "run"}, "GNNREPL_DATA="+data)
					if verify {
						if r := runGoTestProgram(root, progs[i], 10*timeout, []string{"go", "run"}); !r.pass {
							t.Errorf("go run %s does not meet the expectation: %s", progs[i].path, r.reason)
						}
					}
				}
			})
		}
		for _, i := range idx {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
	}
	all := make([]int, len(progs))
	for i := range all {
		all[i] = i
	}
	runAll(all, *goTestTimeout)

	// The report: pass rates per directory, then each failure.
	type tally struct{ pass, run, excl int }
	per := map[string]*tally{}
	total := &tally{}
	dirOf := func(p string) string {
		if d := pathDir(p); d != "." {
			return d + "/"
		}
		return "top level"
	}
	for p := range inRun {
		if _, ok := excluded[p]; ok {
			d := dirOf(p)
			if per[d] == nil {
				per[d] = &tally{}
			}
			per[d].excl++
			total.excl++
		}
	}
	for i, r := range results {
		d := dirOf(progs[i].path)
		if per[d] == nil {
			per[d] = &tally{}
		}
		per[d].run++
		total.run++
		if r.pass {
			per[d].pass++
			total.pass++
		}
	}
	rate := func(n, d int) string {
		if d == 0 {
			return "  -  "
		}
		return fmt.Sprintf("%5.1f%%", 100*float64(n)/float64(d))
	}
	var rep strings.Builder
	fmt.Fprintf(&rep, "Go test programs under gnnrepl run (%s, %d at once, %v each), %v:\n", root, max(1, *goTestJobs), *goTestTimeout, time.Since(start).Round(time.Second))
	fmt.Fprintf(&rep, "  %-22s %5s %5s %8s %8s %14s\n", "directory", "pass", "run", "excluded", "pass/run", "pass/(run+exc)")
	line := func(name string, c *tally) {
		fmt.Fprintf(&rep, "  %-22s %5d %5d %8d %8s %14s\n", name, c.pass, c.run, c.excl, rate(c.pass, c.run), rate(c.pass, c.run+c.excl))
	}
	names := make([]string, 0, len(per))
	for d := range per {
		names = append(names, d)
	}
	slices.Sort(names)
	for _, d := range names {
		line(d, per[d])
	}
	line("all", total)
	t.Log(rep.String())

	var nowPass []string
	for i, r := range results {
		p := progs[i].path
		_, listed := known[p]
		switch {
		case !r.pass && listed:
			t.Logf("known failure %s: %s", p, r.reason)
		case !r.pass && *goTestUpdate:
			t.Logf("new failure %s: %s", p, r.reason)
		case !r.pass:
			t.Errorf("FAIL %s: %s (not in %s: a regression, or run -gotest.update)", p, r.reason, goTestFailuresFile)
		case listed:
			nowPass = append(nowPass, p)
		}
	}
	for _, p := range nowPass {
		t.Logf("now passes (listed in %s; -gotest.update drops it): %s", goTestFailuresFile, p)
	}
	if *goTestUpdate {
		if err := writeGoTestFailures(known, inRun, progs, results); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", goTestFailuresFile)
	}
}

// goTestRoot is $(go env GOROOT)/test.
func goTestRoot(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "test")
}

// goTestSelectedDirs is -gotest.dirs, else $GNNREPL_GOTEST, else ken and
// the top level.
func goTestSelectedDirs() []string {
	s := *goTestDirs
	if s == "" {
		s = os.Getenv("GNNREPL_GOTEST")
	}
	if s == "" {
		s = "ken,."
	}
	if s == "all" {
		return goTestAllDirs
	}
	var dirs []string
	for _, d := range strings.Split(s, ",") {
		if d = strings.Trim(strings.TrimSpace(d), "/"); d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// pathDir is the directory of a slash path, "." at the top level.
func pathDir(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[:i]
	}
	return "."
}

func goTestDirSelected(p string, dirs []string) bool {
	return slices.Contains(dirs, pathDir(p))
}

// goTestPrograms lists the plain `// run` programs of dir (relative to
// root) that build for this GOOS/GOARCH, with their expected output.
func goTestPrograms(root, dir string) ([]goTestProgram, error) {
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.go"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var progs []goTestProgram
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if !isPlainRun(string(src)) {
			continue
		}
		want, err := os.ReadFile(strings.TrimSuffix(f, ".go") + ".out")
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		rel, _ := filepath.Rel(root, f)
		progs = append(progs, goTestProgram{path: filepath.ToSlash(rel), want: string(want)})
	}
	return progs, nil
}

// isPlainRun reports whether src's recipe is exactly `// run` and its
// build constraints hold here. The recipe and the constraints are read as
// cmd/internal/testdir reads them: the recipe is the first non-empty line
// that is not a build constraint, the constraints are the lines before
// the package clause.
func isPlainRun(src string) bool {
	action := ""
	for rest := src; action == "" && rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if constraint.IsGoBuild(line) || constraint.IsPlusBuild(line) {
			continue
		}
		action = strings.TrimSpace(strings.TrimPrefix(line, "//"))
	}
	if action != "run" {
		return false
	}
	header, _, _ := strings.Cut(src, "\npackage")
	for _, line := range strings.Split(header, "\n") {
		if expr, err := constraint.Parse(line); err == nil && !expr.Eval(goTestTag) {
			return false
		}
	}
	return true
}

// goTestTag is testdir's build tag match for the gc toolchain on this
// machine, without its optimization-disabled (gcflags_noopt) setting.
func goTestTag(name string) bool {
	switch {
	case name == runtime.GOOS, name == runtime.GOARCH, name == "gc", name == "test_run":
		return true
	case name == "unix":
		return true // the file builds only on unix
	case name == "cgo":
		return build.Default.CgoEnabled
	case strings.HasPrefix(name, "goexperiment."):
		return slices.Contains(build.Default.ToolTags, name)
	}
	return slices.Contains(build.Default.ReleaseTags, name)
}

// preludeNotice matches the line a session's prelude writes when the
// default dataset is not in the data directory; it is the session's, not
// the program's, output.
var preludeNotice = regexp.MustCompile(`^gnnrepl: cora not loaded \([^\n]*\); using a synthetic graph of the same shape \(set GNNREPL_DATA or --data\)\n`)

// runGoTestProgram runs argv plus the program's path in root, its standard
// output and error into one buffer as testdir does, and checks the result.
func runGoTestProgram(root string, p goTestProgram, timeout time.Duration, argv []string, env ...string) goTestResult {
	start := time.Now()
	cmd := exec.Command(argv[0], append(argv[1:], p.path)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), append([]string{"PWD=" + root}, env...)...)
	out := &cappedBuffer{max: 1 << 20}
	cmd.Stdout, cmd.Stderr = out, out // one writer: exec gives both one pipe, in order
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return goTestResult{reason: "start: " + err.Error()}
	}
	pgid := cmd.Process.Pid
	var timedOut atomic.Bool
	timer := time.AfterFunc(timeout, func() {
		timedOut.Store(true)
		syscall.Kill(-pgid, syscall.SIGKILL)
	})
	err := cmd.Wait()
	timer.Stop()
	// Whatever the program started is ended with it.
	syscall.Kill(-pgid, syscall.SIGKILL)
	r := goTestResult{dur: time.Since(start)}
	got := strings.ReplaceAll(preludeNotice.ReplaceAllString(out.String(), ""), "\r\n", "\n")
	switch {
	case timedOut.Load():
		r.reason = fmt.Sprintf("timeout after %v", timeout)
		if l := lastLine(got); l != "" {
			r.reason += "; last output: " + l
		}
	case err != nil:
		code := -1
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			code = ee.ExitCode()
		}
		r.reason = fmt.Sprintf("exit %d: %s", code, firstNewLine(got, p.want))
	case out.over:
		r.reason = "more than 1 MiB of output"
	case got != p.want:
		r.reason = outputDiff(got, p.want)
	default:
		r.pass = true
	}
	r.reason = oneLine(r.reason)
	return r
}

// cappedBuffer keeps the first max bytes written to it.
type cappedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); len(p) > room {
		b.buf.Write(p[:max(room, 0)])
		b.over = true
	} else {
		b.buf.Write(p)
	}
	return len(p), nil
}

func (b *cappedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// firstNewLine is the first line of got that is not the expected line at
// its place (for a failed run, where the interpreter's or the program's
// complaint starts), or "(no output)".
func firstNewLine(got, want string) string {
	g, w := strings.Split(strings.TrimRight(got, "\n"), "\n"), strings.Split(want, "\n")
	for i, l := range g {
		if i >= len(w) || l != w[i] {
			if strings.TrimSpace(l) == "" && i+1 < len(g) {
				continue
			}
			return l
		}
	}
	if got == "" {
		return "(no output)"
	}
	return "(output as expected)"
}

// outputDiff describes the first difference between got and want.
func outputDiff(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	for i := 0; ; i++ {
		switch {
		case i >= len(g) && i >= len(w):
			return "output differs"
		case i >= len(g) || g[i] == "" && i < len(w):
			return fmt.Sprintf("line %d: output ends, want %q", i+1, w[i])
		case i >= len(w) || w[i] == "":
			if want == "" {
				return fmt.Sprintf("want no output, got %q", g[i])
			}
			return fmt.Sprintf("line %d: got extra %q", i+1, g[i])
		case g[i] != w[i]:
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g[i], w[i])
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}

// oneLine makes a reason one line of at most 200 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// readGoTestList reads a list of `path: reason` lines; blank lines and
// lines starting with # are comments.
func readGoTestList(name string) (map[string]string, error) {
	m := map[string]string{}
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, why, _ := strings.Cut(line, ":")
		if !strings.HasSuffix(p, ".go") {
			return nil, fmt.Errorf("%s:%d: want `path.go: reason`, got %q", name, n, line)
		}
		m[p] = strings.TrimSpace(why)
	}
	return m, sc.Err()
}

// writeGoTestFailures rewrites failures.txt: the failures of this run,
// and the entries of programs this run did not select, as they were. An
// entry whose reason starts with "nondeterministic:" (written by hand, for
// a program that fails only some of the time) stays, with its reason,
// even when the program passed this time.
func writeGoTestFailures(known map[string]string, inRun map[string]bool, progs []goTestProgram, results []goTestResult) error {
	lines := map[string]string{}
	for p, why := range known {
		if !inRun[p] || strings.HasPrefix(why, "nondeterministic:") {
			lines[p] = why
		}
	}
	for i, r := range results {
		if _, kept := lines[progs[i].path]; !r.pass && !kept {
			lines[progs[i].path] = r.reason
		}
	}
	paths := make([]string, 0, len(lines))
	for p := range lines {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b string) int {
		if c := strings.Compare(pathDir(a), pathDir(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	b.WriteString(`# Go's own ` + "`// run`" + ` programs ($GOROOT/test) that fail under gnnrepl run, one
# "path: reason" a line (the reason is the first run's; only the path is
# compared). Regenerated by TestGoTestSuite:
#   go test ./repl -run TestGoTestSuite -args -gotest.update
#   GNNREPL_GOTEST=all go test ./repl -run TestGoTestSuite -timeout 60m -args -gotest.update
# An update keeps the entries of programs it did not run, and those whose
# reason starts with "nondeterministic:" (programs that fail only some of
# the time; written by hand).
`)
	for _, p := range paths {
		fmt.Fprintf(&b, "%s: %s\n", p, lines[p])
	}
	if err := os.MkdirAll(filepath.Dir(goTestFailuresFile), 0o755); err != nil {
		return err
	}
	return os.WriteFile(goTestFailuresFile, []byte(b.String()), 0o644)
}
