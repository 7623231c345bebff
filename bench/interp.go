package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/gnnrepl/gnnrepl/acceptance"
	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/repl"
)

//go:embed testdata/train_sage_timed.go
var trainSAGEScript string

// interpResult is what workload (d) measured: seconds per training run and
// the test accuracy of each run, compiled and interpreted.
type interpResult struct {
	Compiled, Interpreted       []float64
	CompiledAcc, InterpretedAcc []float64
	Note                        string
}

// displayImport is the prelude's import line of builtins/display.
const displayImport = "\t\"github.com/gnnrepl/gnnrepl/builtins/display\"\n"

// interpVsCompiled runs acceptance.TrainSAGE(ds, 0, 0) warmup+reps times
// and the same loop typed into an in-process gnnrepl session (the prelude
// preloads Cora from dataDir) warmup+reps times, alternating (and swapping
// which side goes first) so that load changes on a shared machine hit both
// sides alike; the heap is collected before every run.
func interpVsCompiled(dataDir string, warmup, reps int) (*interpResult, error) {
	ds, err := datasets.LoadPlanetoid("cora", dataDir)
	if err != nil {
		return nil, err
	}
	os.Setenv(datasets.DataDirEnv, dataDir)
	r := &interpResult{}
	var out bytes.Buffer
	opts := repl.DefaultOptions()
	opts.Stdout, opts.Stderr = &out, &out
	s, err := repl.New(opts)
	if err != nil && strings.Contains(opts.Prelude, displayImport) {
		// The display package's symbol table may be missing from a tree
		// whose builtins are being regenerated; the loop does not need it.
		opts.Prelude = strings.Replace(opts.Prelude, displayImport, "", 1)
		s, err = repl.New(opts)
		if err == nil {
			r.Note = "the prelude's display import was dropped: the session could not import it"
		}
	}
	if err != nil {
		return nil, fmt.Errorf("starting a session: %w", err)
	}
	ctx := context.Background()
	if _, err := s.Eval(ctx, "benchReps := 1"); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	runInterp := func() (float64, float64, error) {
		out.Reset()
		if _, err := s.EvalSource(ctx, "train_sage_timed.go", trainSAGEScript); err != nil {
			return 0, 0, fmt.Errorf("interpreted loop: %w (output %q)", err, lastLines(out.String(), 5))
		}
		var sec, acc float64
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "REP ") {
				if _, err := fmt.Sscanf(l, "REP %f %f", &sec, &acc); err == nil {
					return sec, acc, nil
				}
			}
		}
		return 0, 0, fmt.Errorf("interpreted loop printed no REP line: %q", lastLines(out.String(), 5))
	}
	runCompiled := func() (float64, float64, error) {
		t0 := time.Now()
		acc, err := acceptance.TrainSAGE(ds, 0, 0)
		return time.Since(t0).Seconds(), acc, err
	}
	for i := 0; i < warmup+reps; i++ {
		// Each run starts from a collected heap, and the order alternates,
		// so that neither side pays for the other's garbage.
		var cs, ca, is, ia float64
		for k := 0; k < 2; k++ {
			runtime.GC()
			var err error
			if (k == 0) == (i%2 == 0) {
				cs, ca, err = runCompiled()
			} else {
				is, ia, err = runInterp()
			}
			if err != nil {
				return nil, err
			}
		}
		if i >= warmup {
			r.Compiled, r.CompiledAcc = append(r.Compiled, cs), append(r.CompiledAcc, ca)
			r.Interpreted, r.InterpretedAcc = append(r.Interpreted, is), append(r.InterpretedAcc, ia)
		}
	}
	return r, nil
}
