package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gnnrepl/gnnrepl/internal/atomicfile"
	"github.com/gnnrepl/gnnrepl/internal/memrelease"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// config is everything a run needs; flags fill it (see main).
type config struct {
	DataDir, Out, Work string
	Warmup, Reps       int
	Only               map[string]bool // workloads to run: gcn, sage, sampler, interp, kernel

	GCNDatasets         []string
	AccSeeds, AccEpochs int
	BigReps             int // timed epochs on graphs with over 10M feature values (facebook)

	SAGE sageConfig

	SamplerNodes, SamplerEdges, SamplerBatch, SamplerBatches int
	SamplerFanouts                                           []int

	InterpWarmup, InterpReps int

	KernelRuns, KernelReps int // kernel starts per kernel; round trips timed per start

	NoTorch, NoInstall bool
	// TorchAggs lists the PyTorch aggregation variants to try (py/common.py;
	// nil: all, and the fastest is used).
	TorchAggs []string
}

// row is one line of the results table.
type row struct {
	Workload, Gnn, Torch, Ratio, Note string
}

// report is what a run measured.
type report struct {
	Machine         machine
	LoadBefore      string
	LoadAfter       string
	Started         time.Time
	Elapsed         time.Duration
	Rows            []row
	Notes, Failures []string
	Command         string
}

func main() {
	memrelease.Setup() // as the gnnrepl binary does: (d) measures its runtime settings
	cfg := defaultConfig()
	quick := flag.Bool("quick", false, "tiny sizes (a smoke run, well under a minute)")
	flag.StringVar(&cfg.DataDir, "data", "", "shared data folder (default $GNNREPL_SHARED_DATA or ../shared/data next to the module)")
	flag.StringVar(&cfg.Out, "out", "", "results file (default bench/RESULTS.md in the module; \"-\" for none)")
	only := flag.String("only", "gcn,sage,sampler,interp,kernel", "comma-separated workloads to run")
	flag.IntVar(&cfg.Warmup, "warmup", cfg.Warmup, "untimed repetitions before timing")
	flag.IntVar(&cfg.Reps, "reps", cfg.Reps, "timed repetitions (the median is reported)")
	gcnDS := flag.String("gcn-datasets", strings.Join(cfg.GCNDatasets, ","), "datasets of workload (a): cora, citeseer, pubmed, facebook")
	flag.IntVar(&cfg.BigReps, "big-reps", cfg.BigReps, "timed GCN epochs on large-feature graphs (facebook: 22470 x 4714 dense features)")
	flag.IntVar(&cfg.AccSeeds, "acc-seeds", cfg.AccSeeds, "seeds of the 200-epoch Cora accuracy runs")
	flag.IntVar(&cfg.AccEpochs, "acc-epochs", cfg.AccEpochs, "epochs of the accuracy runs")
	flag.IntVar(&cfg.SAGE.Nodes, "sage-nodes", cfg.SAGE.Nodes, "nodes of the synthetic graph of workload (b)")
	flag.IntVar(&cfg.SAGE.Edges, "sage-edges", cfg.SAGE.Edges, "directed edges of the synthetic graph of workload (b)")
	flag.IntVar(&cfg.SAGE.Feats, "sage-feats", cfg.SAGE.Feats, "input features of workload (b)")
	flag.IntVar(&cfg.SAGE.Hidden, "sage-hidden", cfg.SAGE.Hidden, "hidden units of workload (b)")
	flag.IntVar(&cfg.SAGE.Batch, "sage-batch", cfg.SAGE.Batch, "seeds per batch of workload (b)")
	sageFan := flag.String("sage-fanouts", ints(cfg.SAGE.Fanouts), "fanouts of workload (b)")
	flag.IntVar(&cfg.SamplerNodes, "sampler-nodes", cfg.SamplerNodes, "nodes of the power-law graph of workload (c)")
	flag.IntVar(&cfg.SamplerEdges, "sampler-edges", cfg.SamplerEdges, "edges of the power-law graph of workload (c)")
	flag.IntVar(&cfg.SamplerBatches, "sampler-batches", cfg.SamplerBatches, "timed batches of workload (c)")
	flag.IntVar(&cfg.SamplerBatch, "sampler-batch", cfg.SamplerBatch, "seeds per batch of workload (c)")
	samFan := flag.String("sampler-fanouts", ints(cfg.SamplerFanouts), "fanouts of workload (c)")
	flag.IntVar(&cfg.InterpReps, "interp-reps", cfg.InterpReps, "timed training runs of workload (d), each side")
	flag.IntVar(&cfg.KernelRuns, "kernel-runs", cfg.KernelRuns, "kernel starts per kernel in workload (e)")
	flag.IntVar(&cfg.KernelReps, "kernel-reps", cfg.KernelReps, "timed execute round trips per start in workload (e)")
	flag.BoolVar(&cfg.NoTorch, "no-torch", false, "gnnrepl only")
	flag.BoolVar(&cfg.NoInstall, "no-install", false, "do not apt-get install python3-torch when torch is missing")
	flag.Parse()
	if *quick {
		q := quickConfig()
		q.DataDir, q.Out, q.NoTorch, q.NoInstall = cfg.DataDir, cfg.Out, cfg.NoTorch, cfg.NoInstall
		cfg = q
	} else {
		cfg.GCNDatasets = strings.Split(*gcnDS, ",")
		var err error
		if cfg.SAGE.Fanouts, err = parseInts(*sageFan); err != nil {
			fail(err)
		}
		if cfg.SamplerFanouts, err = parseInts(*samFan); err != nil {
			fail(err)
		}
	}
	cfg.Only = map[string]bool{}
	for _, w := range strings.Split(*only, ",") {
		cfg.Only[strings.TrimSpace(w)] = true
	}
	root := moduleRoot()
	if cfg.DataDir == "" {
		cfg.DataDir = defaultDataDir(root)
	}
	if cfg.Out == "" && root != "" {
		cfg.Out = filepath.Join(root, "bench", "RESULTS.md")
	}
	work, err := os.MkdirTemp("", "gnnrepl-bench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	cfg.Work = work
	rep := run(cfg, os.Stderr)
	rep.Command = "go run ./bench " + strings.Join(os.Args[1:], " ")
	printTable(os.Stdout, rep)
	if cfg.Out != "-" && cfg.Out != "" {
		if err := writeResults(cfg.Out, rep); err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "bench: wrote %s\n", cfg.Out)
	}
	if len(rep.Failures) > 0 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(2)
}

// defaultConfig is the default run: about 5-10 minutes on 2 cores.
func defaultConfig() config {
	return config{
		Warmup: 3, Reps: 10,
		GCNDatasets: []string{"cora", "citeseer", "facebook"}, AccSeeds: 2, AccEpochs: 200, BigReps: 5,
		SAGE:         sageConfig{Nodes: 100_000, Edges: 2_500_000, Feats: 100, Classes: 47, Hidden: 256, Batch: 1024, Fanouts: []int{15, 10}},
		SamplerNodes: 1_000_000, SamplerEdges: 25_000_000, SamplerBatch: 1024, SamplerBatches: 40,
		SamplerFanouts: []int{15, 10, 5},
		InterpWarmup:   1, InterpReps: 5,
		KernelRuns: 5, KernelReps: 40,
	}
}

// quickConfig is a smoke run: every workload at a tiny size.
func quickConfig() config {
	return config{
		Warmup: 1, Reps: 3,
		GCNDatasets: []string{"cora"}, AccSeeds: 1, AccEpochs: 20, BigReps: 2,
		SAGE:         sageConfig{Nodes: 5000, Edges: 50_000, Feats: 32, Classes: 5, Hidden: 32, Batch: 128, Fanouts: []int{5, 5}},
		SamplerNodes: 20_000, SamplerEdges: 200_000, SamplerBatch: 256, SamplerBatches: 5,
		SamplerFanouts: []int{15, 10, 5},
		InterpWarmup:   0, InterpReps: 1,
		KernelRuns: 1, KernelReps: 10,
	}
}

// run runs the selected workloads; progress goes to log.
func run(cfg config, log io.Writer) *report {
	rep := &report{Machine: describeMachine(), LoadBefore: loadAvg(), Started: time.Now()}
	if os.Getenv("GNNREPL_BLAS") != "gonum" {
		if err := tensor.LoadOpenBLAS(); err != nil {
			rep.Notes = append(rep.Notes, "OpenBLAS not loaded: "+err.Error())
		}
	}
	rep.Machine.BLAS = tensor.BLASName()
	logf := func(f string, a ...any) { fmt.Fprintf(log, "bench: "+f+"\n", a...) }
	failf := func(f string, a ...any) {
		msg := fmt.Sprintf(f, a...)
		logf("FAILED: %s", msg)
		rep.Failures = append(rep.Failures, msg)
	}
	threads := runtime.GOMAXPROCS(0)
	var te *torchEnv
	if !cfg.NoTorch && (cfg.Only["gcn"] || cfg.Only["sage"]) {
		var err error
		te, err = findTorch(cfg.Work, !cfg.NoInstall, logf)
		if err != nil {
			logf("%v: PyTorch columns stay empty", err)
			rep.Notes = append(rep.Notes, "PyTorch: "+err.Error())
		} else {
			rep.Machine.Torch, rep.Machine.TorchBuild, rep.Machine.Python = te.version, te.config, te.python
		}
	}
	torchArgs := func(extra map[string]any) map[string]any {
		a := map[string]any{"threads": threads, "warmup": cfg.Warmup, "reps": cfg.Reps}
		if cfg.TorchAggs != nil {
			a["aggs"] = cfg.TorchAggs
		}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}

	if cfg.Only["gcn"] {
		for _, name := range cfg.GCNDatasets {
			logf("(a) GCN epoch on %s", name)
			d, g, err := loadGCNDataset(name, cfg.DataDir)
			if err != nil {
				failf("(a) %s: %v", name, err)
				rep.Rows = append(rep.Rows, row{Workload: "(a) GCN epoch, " + name, Note: "load failed"})
				continue
			}
			r := row{Workload: fmt.Sprintf("(a) GCN epoch, %s (%d nodes, %d edges, %d feats)", name, g.NumNodes(), g.NumEdges(), d.NumFeatures)}
			warmup, reps := cfg.Warmup, cfg.Reps
			if g.NumNodes()*d.NumFeatures > 10_000_000 {
				warmup, reps = min(warmup, 1), min(reps, cfg.BigReps)
			}
			gt := median(gcnEpochTimes(d, g, warmup, reps))
			r.Gnn = fmtSec(gt)
			accSeeds := 0
			var gAcc []float64
			if name == "cora" {
				accSeeds = cfg.AccSeeds
				for s := 0; s < accSeeds; s++ {
					gAcc = append(gAcc, gcnAccuracy(d, g, int64(s), cfg.AccEpochs))
				}
			}
			if te != nil {
				dir := filepath.Join(cfg.Work, "gcn-"+name)
				var pr struct {
					Times []float64
					Accs  []float64
					Agg   string
					Tried map[string]float64
				}
				if err := exportGCN(dir, d, g); err != nil {
					failf("(a) %s: export: %v", name, err)
				} else if err := te.run("gcn.py", torchArgs(map[string]any{"dir": dir, "acc_seeds": accSeeds, "epochs": cfg.AccEpochs, "warmup": warmup, "reps": reps}), &pr); err != nil {
					failf("(a) %s: %v", name, err)
				} else {
					pt := median(pr.Times)
					r.Torch, r.Ratio = fmtSec(pt), fmtRatio(gt/pt)
					r.Note = "torch agg " + pr.Agg
					if len(pr.Accs) > 0 {
						r.Note += fmt.Sprintf("; Cora test acc after %d epochs, mean of %d seeds: gnnrepl %.4f, torch %.4f", cfg.AccEpochs, accSeeds, mean(gAcc), mean(pr.Accs))
						if cfg.AccEpochs >= 200 && math.Abs(mean(gAcc)-mean(pr.Accs)) > 0.02 {
							failf("(a) Cora accuracies differ by more than 0.02: gnnrepl %.4f, torch %.4f", mean(gAcc), mean(pr.Accs))
						}
					}
					rep.Notes = append(rep.Notes, fmt.Sprintf("(a) %s: torch aggregation variants (median s/epoch): %s", name, fmtTried(pr.Tried)))
				}
				os.RemoveAll(dir)
			} else if len(gAcc) > 0 {
				r.Note = fmt.Sprintf("Cora test acc after %d epochs, mean of %d seeds: gnnrepl %.4f", cfg.AccEpochs, accSeeds, mean(gAcc))
			}
			rep.Rows = append(rep.Rows, r)
			logf("    gnnrepl %s, torch %s, ratio %s", r.Gnn, r.Torch, r.Ratio)
			d, g = nil, nil
			runtime.GC()
		}
	}

	if cfg.Only["sage"] {
		c := cfg.SAGE
		logf("(b) GraphSAGE step: synthetic graph %d nodes, %d edges, %d feats", c.Nodes, c.Edges, c.Feats)
		s, err := newSAGESetup(c)
		if err != nil {
			failf("(b) %v", err)
		} else {
			r := row{Workload: fmt.Sprintf("(b) SAGE step, %d seeds, fanouts %v, %d sampled edges, %d input nodes, %d->%d->%d",
				c.Batch, c.Fanouts, s.edges, s.blocks[0].NumSrcNodes(), c.Feats, c.Hidden, c.Classes)}
			gl := s.losses()
			gt := median(s.times(cfg.Warmup, cfg.Reps))
			r.Gnn = fmtSec(gt)
			r.Note = fmt.Sprintf("losses gnnrepl %.5f, %.5f", gl[0], gl[1])
			if te != nil {
				dir := filepath.Join(cfg.Work, "sage")
				var pr struct {
					Losses []float64
					Times  []float64
					Agg    string
					Tried  map[string]float64
				}
				if err := s.export(dir); err != nil {
					failf("(b) export: %v", err)
				} else if err := te.run("sage_step.py", torchArgs(map[string]any{"dir": dir}), &pr); err != nil {
					failf("(b) %v", err)
				} else {
					pt := median(pr.Times)
					r.Torch, r.Ratio = fmtSec(pt), fmtRatio(gt/pt)
					r.Note += fmt.Sprintf("; torch %.5f, %.5f; torch agg %s", pr.Losses[0], pr.Losses[1], pr.Agg)
					for i := 0; i < 2; i++ {
						if math.Abs(gl[i]-pr.Losses[i]) > 1e-3*math.Max(1, math.Abs(gl[i])) {
							failf("(b) loss of step %d differs: gnnrepl %.6f, torch %.6f", i+1, gl[i], pr.Losses[i])
						}
					}
					rep.Notes = append(rep.Notes, fmt.Sprintf("(b) torch aggregation variants (median s/step): %s", fmtTried(pr.Tried)))
				}
			}
			rep.Rows = append(rep.Rows, r)
			logf("    gnnrepl %s, torch %s, ratio %s (%s)", r.Gnn, r.Torch, r.Ratio, r.Note)
		}
		s = nil
		runtime.GC()
	}

	if cfg.Only["sampler"] {
		logf("(c) sampler: building a power-law graph of %d nodes, %d edges", cfg.SamplerNodes, cfg.SamplerEdges)
		t0 := time.Now()
		g, err := powerLawGraph(cfg.SamplerNodes, cfg.SamplerEdges, 2024)
		if err != nil {
			failf("(c) %v", err)
		} else {
			build := time.Since(t0).Seconds()
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			res := samplerThroughput(g, cfg.SamplerFanouts, cfg.SamplerBatch, 2, cfg.SamplerBatches)
			rep.Rows = append(rep.Rows, row{
				Workload: fmt.Sprintf("(c) sampler, power-law %s nodes / %s edges, fanouts %v, batch %d", human(cfg.SamplerNodes), human(cfg.SamplerEdges), cfg.SamplerFanouts, cfg.SamplerBatch),
				Gnn:      fmt.Sprintf("%.2fM edges/s", res.EdgesPerSec/1e6),
				Note: fmt.Sprintf("%.2fM edges per CPU-s; median batch %s (%.0f edges); graph built in %.1f s, Go heap %.2f GiB",
					res.EdgesPerCPUSec/1e6, fmtSec(res.MedianBatchSecs), res.EdgesPerBatch, build, float64(ms.HeapInuse)/(1<<30)),
			})
			logf("    %s; %s", rep.Rows[len(rep.Rows)-1].Gnn, rep.Rows[len(rep.Rows)-1].Note)
		}
		g = nil
		runtime.GC()
	}

	if cfg.Only["interp"] {
		logf("(d) GraphSAGE on Cora through the DataLoader, compiled vs interpreted")
		res, err := interpVsCompiled(cfg.DataDir, cfg.InterpWarmup, cfg.InterpReps)
		if err != nil {
			failf("(d) %v", err)
		} else {
			c, i := median(res.Compiled), median(res.Interpreted)
			r := row{Workload: "(d) Cora GraphSAGE, 40 epochs via DataLoader: interpreted (gnnrepl col.) vs compiled (torch col.)",
				Gnn: fmtSec(i), Torch: "compiled " + fmtSec(c), Ratio: fmtRatio(i / c),
				Note: fmt.Sprintf("interpreted/compiled %+.1f%%; test acc compiled %.4f, interpreted %.4f", (i/c-1)*100, res.CompiledAcc[0], res.InterpretedAcc[0])}
			for k := range res.CompiledAcc {
				if res.CompiledAcc[k] != res.InterpretedAcc[k] {
					failf("(d) run %d: accuracies differ: compiled %.4f, interpreted %.4f", k, res.CompiledAcc[k], res.InterpretedAcc[k])
				}
			}
			if res.Note != "" {
				r.Note += "; " + res.Note
			}
			rep.Rows = append(rep.Rows, r)
			rep.Notes = append(rep.Notes, fmt.Sprintf("(d) runs (s): compiled %s; interpreted %s", fmtList(res.Compiled), fmtList(res.Interpreted)))
			logf("    %s vs %s (%s)", r.Gnn, r.Torch, r.Note)
		}
	}
	if cfg.Only["kernel"] {
		logf("(e) Jupyter kernel startup and execute round trip: gnnrepl vs ipykernel")
		gn, ipy, err := kernelBench(moduleRoot(), cfg.Work, cfg.DataDir, cfg.KernelRuns, cfg.KernelReps)
		if err != nil {
			failf("(e) %v", err)
		} else {
			ms := func(s float64) string { return fmt.Sprintf("%.1f ms", s*1000) }
			rep.Rows = append(rep.Rows,
				row{Workload: "(e) kernel startup to first kernel_info_reply (torch col.: ipykernel)", Gnn: ms(gn.Startup), Torch: ms(ipy.Startup), Ratio: fmtRatio(gn.Startup / ipy.Startup),
					Note: fmt.Sprintf("median of %d starts; first cell (1+1, gnnrepl's prelude loads Cora) done at %s vs %s", cfg.KernelRuns, ms(gn.FirstCell), ms(ipy.FirstCell))},
				row{Workload: "(e) kernel execute(\"1+1\") round trip to idle, jupyter_client (torch col.: ipykernel)", Gnn: ms(gn.RoundTrip), Torch: ms(ipy.RoundTrip), Ratio: fmtRatio(gn.RoundTrip / ipy.RoundTrip),
					Note: fmt.Sprintf("median of %d (execute_interactive); p90 %s vs %s; without execute_interactive's polling %s vs %s", cfg.KernelRuns*cfg.KernelReps, ms(gn.RoundTripP90), ms(ipy.RoundTripP90), ms(gn.RoundTripRaw), ms(ipy.RoundTripRaw))})
			logf("    startup %s vs %s, round trip %s vs %s", ms(gn.Startup), ms(ipy.Startup), ms(gn.RoundTrip), ms(ipy.RoundTrip))
		}
	}
	rep.LoadAfter = loadAvg()
	rep.Elapsed = time.Since(rep.Started)
	return rep
}

func printTable(w io.Writer, rep *report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tgnnrepl\tPyTorch\tratio\tnote")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Workload, dash(r.Gnn), dash(r.Torch), dash(r.Ratio), r.Note)
	}
	tw.Flush()
	fmt.Fprintf(w, "ratio = gnnrepl / PyTorch time (< 1: gnnrepl faster); medians of %s after warm-up; load average %s -> %s\n",
		"the timed repetitions", rep.LoadBefore, rep.LoadAfter)
	for _, f := range rep.Failures {
		fmt.Fprintln(w, "FAILED:", f)
	}
}

// writeResults writes the report as Markdown to path atomically (a
// temporary file in the same folder, then a rename).
func writeResults(path string, rep *report) error {
	var b strings.Builder
	m := rep.Machine
	fmt.Fprintf(&b, "# gnnrepl vs PyTorch benchmark results\n\n")
	fmt.Fprintf(&b, "Written by `%s` (bench/, see its package doc) on %s; the run took %s.\n\n",
		strings.TrimSpace(rep.Command), rep.Started.UTC().Format("2006-01-02 15:04 MST"), rep.Elapsed.Round(time.Second))
	fmt.Fprintf(&b, "## Machine\n\n")
	fmt.Fprintf(&b, "- CPU: %s, %s\n- Memory: %s\n- OS: %s\n- Go: %s, GOMAXPROCS %s; gnnrepl BLAS: %s; freed memory: %s\n",
		m.CPU, m.Cores, m.Memory, m.OS, m.GoVersion, m.GOMAXPROCS, m.BLAS, memrelease.Mode())
	fmt.Fprintf(&b, "- PyTorch: %s (%s) via %s, torch.set_num_threads(%s)\n", m.Torch, dash(m.TorchBuild), dash(m.Python), m.GOMAXPROCS)
	fmt.Fprintf(&b, "- Load average (1, 5, 15 min) before: %s, after: %s. The machine is shared with other builds, so times carry that noise.\n\n", rep.LoadBefore, rep.LoadAfter)
	fmt.Fprintf(&b, "## Results\n\nratio = gnnrepl time / PyTorch time (below 1: gnnrepl is faster). Times are medians of the timed repetitions after warm-up.\n\n")
	fmt.Fprintf(&b, "| workload | gnnrepl | PyTorch | ratio | note |\n|---|---|---|---|---|\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Workload, dash(r.Gnn), dash(r.Torch), dash(r.Ratio), r.Note)
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintf(&b, "\n## Notes\n\n")
		for _, n := range rep.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	if len(rep.Failures) > 0 {
		fmt.Fprintf(&b, "\n## Failures\n\n")
		for _, f := range rep.Failures {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	fmt.Fprintf(&b, "\n## Goals (issue 5)\n\n- (a) GCN epoch <= 0.25x PyTorch at equal accuracy; (b) SAGE step <= 0.7x PyTorch; (c) >= 15M sampled edges/s at products scale (2.4M nodes, 62M edges: `-sampler-nodes 2400000 -sampler-edges 62000000`); (d) interpreted within 3%% of compiled.\n")
	return atomicfile.WriteFile(path, []byte(b.String()), 0o644)
}

// moduleRoot walks up from the working directory to the folder holding
// go.mod, or returns "".
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// defaultDataDir is $GNNREPL_SHARED_DATA, else ../shared/data next to the
// module root.
func defaultDataDir(root string) string {
	if d := os.Getenv("GNNREPL_SHARED_DATA"); d != "" {
		return d
	}
	return filepath.Join(root, "..", "shared", "data")
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func fmtSec(s float64) string {
	switch {
	case s < 1e-3:
		return fmt.Sprintf("%.1f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.2f ms", s*1e3)
	}
	return fmt.Sprintf("%.3f s", s)
}

func fmtRatio(r float64) string { return fmt.Sprintf("%.3fx", r) }

func fmtList(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.3f", x)
	}
	return strings.Join(s, ", ")
}

func fmtTried(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var s []string
	for _, k := range keys {
		if math.IsInf(m[k], 1) || m[k] > 1e300 {
			s = append(s, k+" unavailable")
		} else {
			s = append(s, k+" "+fmtSec(m[k]))
		}
	}
	return strings.Join(s, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func human(n int) string {
	switch {
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'g', 4, 64) + "M"
	case n >= 1e3:
		return strconv.FormatFloat(float64(n)/1e3, 'g', 4, 64) + "k"
	}
	return strconv.Itoa(n)
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("bad integer list %q: %v", s, err)
		}
		out = append(out, v)
	}
	return out, nil
}
