package memplan

import (
	"fmt"
	"html"
	"runtime"
	"strings"
	"time"

	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Case is one row of a memory comparison (Compare): a configuration, what
// the literature claims for it, and the row it is compared with.
type Case struct {
	// Name labels the row, e.g. "neighbor sampling".
	Name string
	// Claim is the claim being checked, e.g. "O(batch·k^L)".
	Claim string
	// Config is the training setup; it needs a Dataset unless PredictOnly.
	Config Config
	// Baseline is the index, in the cases given to Compare, of the row this
	// one is compared with (its peak as a ratio of the baseline's), or -1
	// for none. It must be a row before this one.
	Baseline int
	// PredictOnly predicts the row without training it (a configuration
	// that does not fit the machine).
	PredictOnly bool
}

// CompareOptions sets how much Compare trains.
type CompareOptions struct {
	// MeasureSteps is the number of steps of Measure for the deterministic
	// peak (2 when 0).
	MeasureSteps int
	// MaxBatches limits the timed batches of a sampled epoch (0: the whole
	// epoch). When it cuts the epoch short, the epoch time is the mean time
	// of the timed batches times the batches of an epoch, and Row.TimedBatches
	// says how many were timed.
	MaxBatches int
}

// Row is one measured (or predicted) row of a Comparison. Byte counts are
// the engine's tensor accounting (tensor.MemoryAllocated("cpu")), as Plan.
// TensorPeak, so predicted and measured values compare one to one.
type Row struct {
	// Case is the row's case, as given.
	Case Case
	// Plan is the prediction (Predict).
	Plan Plan
	// Measured is false for PredictOnly rows: the fields below are then 0.
	Measured bool
	// Peak is the measured training peak, Measurement.TensorPeak: the
	// resident data plus the largest step's transient tensors.
	Peak int64
	// Resident is the tensor bytes held before the first step: the dataset's
	// tensors the configuration keeps (the feature store's instead of
	// "feat" when features are compressed) and the model's parameters. Peak -
	// Resident is what training adds on top (gradients, activations,
	// the batch, workspace).
	Resident int64
	// Saved is the measured activation bytes kept for the backward pass:
	// the live tensor bytes at the end of a forward pass (loss computed),
	// above those before it.
	Saved int64
	// EpochSeconds is the wall-clock time of one training epoch with the
	// garbage collector running normally (see CompareOptions.MaxBatches);
	// full-graph training has one step per epoch.
	EpochSeconds float64
	// Batches is the number of steps of an epoch, TimedBatches the number
	// timed.
	Batches, TimedBatches int
	// Loss is the last timed step's loss.
	Loss float64
}

// Comparison is the result of Compare: one Row per Case. Its HTML method
// renders it as a table, so display.Show shows it in a notebook.
type Comparison struct {
	Rows []Row
}

// Compare predicts and measures each case, in order, and returns the
// table. For every case it calls Predict; unless PredictOnly it then
// calls Measure (MeasureSteps steps) for the deterministic peak, and trains
// once more on a fresh model with normal garbage collection: one warm-up
// step, which also measures the activations kept for backward (Row.Saved),
// then one epoch timed (MaxBatches). The steps are Config's loop. Compare
// is not safe to run concurrently with other tensor work (see Measure).
//
// It returns an error naming the case for an invalid Config, a Baseline
// that is not an earlier row, a missing Dataset, and the errors of Predict,
// Measure and the DataLoader, with the rows done so far. When the running
// evaluation is cancelled (runctx: Ctrl-C, a Jupyter interrupt) it stops
// at the next training step or batch and returns nil and the context's
// error (errors.Is(err, context.Canceled)). Time goes as Measure's (a garbage collection
// per op) plus two epochs' worth of training.
func Compare(cases []Case, o CompareOptions) (*Comparison, error) {
	if o.MeasureSteps <= 0 {
		o.MeasureSteps = 2
	}
	out := &Comparison{}
	for i, cs := range cases {
		fail := func(err error) (*Comparison, error) {
			if ctxErr := runctx.Err(); ctxErr != nil {
				return nil, fmt.Errorf("memplan.Compare: interrupted in case %d (%q): %w", i, cs.Name, ctxErr)
			}
			return out, fmt.Errorf("memplan.Compare: case %d (%q): %w", i, cs.Name, err)
		}
		if err := runctx.Err(); err != nil {
			return fail(err)
		}
		if cs.Baseline >= i || cs.Baseline < -1 {
			return fail(fmt.Errorf("%w: Baseline %d must be -1 or an earlier case", ErrConfig, cs.Baseline))
		}
		p, err := Predict(cs.Config)
		if err != nil {
			return fail(err)
		}
		row := Row{Case: cs, Plan: p}
		if !cs.PredictOnly {
			m, err := Measure(cs.Config, o.MeasureSteps)
			if err != nil {
				return fail(err)
			}
			row.Measured, row.Peak = true, m.TensorPeak
			if err := timeEpoch(&row, p.Config, o.MaxBatches); err != nil {
				return fail(err)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// timeEpoch fills row's Resident, Saved, EpochSeconds, Batches,
// TimedBatches and Loss by training n (normalized) on its Dataset.
func timeEpoch(row *Row, n Config, maxBatches int) error {
	d := n.Dataset
	g := d.Graph
	m := newModule(&n)
	opt := newOptimizer(&n, m.Parameters())
	for _, p := range m.Parameters() {
		row.Resident += p.Nbytes()
	}
	row.Resident += keptDatasetBytes(&n)
	row.Resident += storeBytes(&n) // a compressed store replaces "feat"

	// step runs one training step on logits from forward; with measure it
	// records the activations kept for backward.
	step := func(forward func() *tensor.Tensor, measure bool) float64 {
		opt.ZeroGrad()
		var before int64
		if measure {
			settle()
			before = tensor.MemoryAllocated("cpu")
		}
		var loss *tensor.Tensor
		autocast(n.DType, func() { loss = forward() })
		if measure {
			settle()
			row.Saved = tensor.MemoryAllocated("cpu") - before
		}
		loss.Backward()
		opt.Step()
		return loss.Item()
	}

	if !n.Sampling {
		feat, labels := g.NData("feat"), g.NData("label")
		forward := func() *tensor.Tensor {
			return nn.MaskedCrossEntropy(m.(nn.GraphModel).Forward(g, feat), labels, d.TrainIdx)
		}
		step(forward, true)
		t0 := time.Now()
		row.Loss = step(forward, false)
		row.EpochSeconds = time.Since(t0).Seconds()
		row.Batches, row.TimedBatches = 1, 1
		keep(m, opt)
		return nil
	}

	opts := sampling.LoaderOptions{BatchSize: n.BatchSize, Shuffle: true, Seed: n.Seed,
		NumWorkers: n.NumWorkers, PrefetchFactor: n.PrefetchFactor, PrefetchLabels: []string{"label"}}
	if n.FeatureStore == "float32" && n.StoreGatherDType == tensor.Float32 {
		opts.PrefetchNodeFeats = []string{"feat"}
	} else {
		// As Measure: the store (a float32 one over the dataset's tensor
		// when only the gather dtype is low) in the gather dtype.
		opts.StoreGatherDType = n.StoreGatherDType
		st, err := featstore.New(g.NData("feat"), storeDTypes[n.FeatureStore])
		if err != nil {
			return fmt.Errorf("FeatureStore %q: %w", n.FeatureStore, err)
		}
		defer runtime.KeepAlive(st)
		opts.NodeFeatStores = map[string]featstore.Store{"feat": st}
	}
	dl, err := sampling.NewDataLoader(g, d.TrainIdx, sampling.NeighborSampler{Fanouts: n.Fanouts}, opts)
	if err != nil {
		return err
	}
	defer dl.Close()
	forward := func() *tensor.Tensor {
		blocks := dl.Blocks()
		logits := m.(nn.BlockModel).ForwardBlocks(blocks, blocks[0].SrcData("feat"))
		return tensor.CrossEntropy(logits, blocks[len(blocks)-1].DstData("label"))
	}
	// Warm-up on the first batch of a throw-away epoch, then one epoch timed.
	if !dl.Next() {
		return fmt.Errorf("the DataLoader gave no batch: %v", dl.Err())
	}
	step(forward, true)
	for dl.Next() { // finish the warm-up epoch untrained
	}
	if err := dl.Err(); err != nil {
		return err
	}
	row.Batches = dl.Len()
	t0 := time.Now()
	for dl.Next() {
		row.Loss = step(forward, false)
		row.TimedBatches++
		if maxBatches > 0 && row.TimedBatches >= maxBatches {
			break
		}
	}
	el := time.Since(t0).Seconds()
	if err := dl.Err(); err != nil {
		return err
	}
	if row.TimedBatches == 0 {
		return fmt.Errorf("the DataLoader gave no batch to time")
	}
	row.EpochSeconds = el / float64(row.TimedBatches) * float64(row.Batches)
	keep(m, opt)
	return nil
}

// keep keeps the model and optimizer alive until the timing is done.
func keep(m nn.Module, opt optim.Optimizer) {
	runtime.KeepAlive(m)
	runtime.KeepAlive(opt)
}

// Names returns each row's name, for a chart's categories.
func (c *Comparison) Names() []string {
	s := make([]string, len(c.Rows))
	for i, r := range c.Rows {
		s[i] = r.Case.Name
	}
	return s
}

// PredictedMiB returns each row's predicted tensor peak (Plan.TensorPeak)
// in MiB.
func (c *Comparison) PredictedMiB() []float64 {
	s := make([]float64, len(c.Rows))
	for i, r := range c.Rows {
		s[i] = mib(r.Plan.TensorPeak)
	}
	return s
}

// MeasuredMiB returns each row's measured peak in MiB, NaN for rows that
// were only predicted (a chart leaves them out).
func (c *Comparison) MeasuredMiB() []float64 {
	s := make([]float64, len(c.Rows))
	for i, r := range c.Rows {
		s[i] = nan()
		if r.Measured {
			s[i] = mib(r.Peak)
		}
	}
	return s
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func nan() float64 {
	var z float64
	return z / z
}

// Ratio returns row i's peak divided by its baseline's: measured peaks when
// both rows are measured, predicted tensor peaks otherwise (then
// predicted is true). It returns 0 when the row has no baseline.
func (c *Comparison) Ratio(i int) (ratio float64, predicted bool) {
	r := c.Rows[i]
	if r.Case.Baseline < 0 {
		return 0, false
	}
	b := c.Rows[r.Case.Baseline]
	if r.Measured && b.Measured {
		return float64(r.Peak) / float64(b.Peak), false
	}
	return float64(r.Plan.TensorPeak) / float64(b.Plan.TensorPeak), true
}

// vs renders row i against its baseline, e.g. "0.21× full graph" or
// "−38% vs neighbor sampling".
func (c *Comparison) vs(i int) string {
	ratio, pred := c.Ratio(i)
	if ratio == 0 {
		return "—"
	}
	base := c.Rows[c.Rows[i].Case.Baseline].Case.Name
	var s string
	if ratio < 0.5 {
		s = fmt.Sprintf("%.1f× below %s", 1/ratio, base)
	} else {
		s = fmt.Sprintf("%+.0f%% vs %s", 100*(ratio-1), base)
	}
	if pred {
		s += " (predicted)"
	}
	return s
}

// cells returns row i's table cells: name, claim, predicted peak, measured
// peak (with the prediction's error), measured peak above resident data,
// kept for backward, comparison with the baseline, epoch time.
func (c *Comparison) cells(i int) []string {
	r := c.Rows[i]
	cells := []string{r.Case.Name, r.Case.Claim, tensor.FormatBytes(r.Plan.TensorPeak)}
	if !r.Measured {
		cells = append(cells, "not run (predicted only)", "—", "—")
	} else {
		cells = append(cells,
			fmt.Sprintf("%s (%+.1f%%)", tensor.FormatBytes(r.Peak), 100*float64(r.Plan.TensorPeak-r.Peak)/float64(r.Peak)),
			tensor.FormatBytes(r.Peak-r.Resident), tensor.FormatBytes(r.Saved))
	}
	cells = append(cells, c.vs(i))
	switch {
	case !r.Measured:
		cells = append(cells, "—")
	case r.TimedBatches < r.Batches:
		cells = append(cells, fmt.Sprintf("%.2f s (%d of %d batches timed)", r.EpochSeconds, r.TimedBatches, r.Batches))
	default:
		cells = append(cells, fmt.Sprintf("%.2f s (%d steps)", r.EpochSeconds, r.Batches))
	}
	return cells
}

var compareHeader = []string{"configuration", "seed's claim", "predicted peak", "measured peak (prediction's error)",
	"above resident data", "kept for backward", "vs baseline", "epoch time"}

// HTML renders the comparison as an HTML table with the columns
// configuration, seed's claim, predicted peak, measured peak (and the
// prediction's error), measured peak above the resident data, activations
// kept for backward, the peak against the baseline row, and epoch time.
func (c *Comparison) HTML() string {
	var b strings.Builder
	b.WriteString("<table>\n<thead><tr>")
	for _, h := range compareHeader {
		fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for i := range c.Rows {
		b.WriteString("<tr>")
		for k, cell := range c.cells(i) {
			align := ""
			if k >= 2 {
				align = ` style="text-align:right"`
			}
			fmt.Fprintf(&b, "<td%s>%s</td>", align, html.EscapeString(cell))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>")
	return b.String()
}

// Markdown renders the comparison as a Markdown table (HTML's columns).
func (c *Comparison) Markdown() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(compareHeader, " | ") + " |\n|")
	for range compareHeader {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i := range c.Rows {
		b.WriteString("| " + strings.Join(c.cells(i), " | ") + " |\n")
	}
	return b.String()
}

// String renders the comparison as the Markdown table.
func (c *Comparison) String() string { return c.Markdown() }

// Effects renders, as a Markdown table, what each row with a baseline
// changes against that baseline: the peak, the peak above resident data,
// the activations kept for backward and the epoch time, each as a
// percentage change ("−41%") or, for a reduction of more than half, as a
// factor ("4.2× lower"). Values of rows that were only predicted are the
// predicted tensor peaks, marked "(predicted)"; the other columns need two
// measured rows and are "—" otherwise.
func (c *Comparison) Effects() string {
	var b strings.Builder
	b.WriteString("| configuration | against | peak | above resident data | kept for backward | epoch time |\n|---|---|---|---|---|---|\n")
	for i, r := range c.Rows {
		if r.Case.Baseline < 0 {
			continue
		}
		base := c.Rows[r.Case.Baseline]
		ratio, pred := c.Ratio(i)
		peak := change(ratio)
		if pred {
			peak += " (predicted)"
		}
		above, kept, t := "—", "—", "—"
		if r.Measured && base.Measured {
			above = change(float64(r.Peak-r.Resident) / float64(base.Peak-base.Resident))
			kept = change(float64(r.Saved) / float64(base.Saved))
			t = change(r.EpochSeconds / base.EpochSeconds)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.Case.Name, base.Case.Name, peak, above, kept, t)
	}
	return b.String()
}

// change renders a ratio new/old as "−41%", "+12%" or, below one half,
// "4.2× lower".
func change(ratio float64) string {
	switch {
	case ratio != ratio || ratio <= 0:
		return "—"
	case ratio < 0.5:
		return fmt.Sprintf("%.1f× lower", 1/ratio)
	case ratio < 1:
		return fmt.Sprintf("−%.0f%%", 100*(1-ratio))
	}
	return fmt.Sprintf("+%.0f%%", 100*(ratio-1))
}

// EpochRatio returns row i's epoch time over row j's (for example 1.3 for
// 30% slower), or 0 when either row was not timed.
func (c *Comparison) EpochRatio(i, j int) float64 {
	a, b := c.Rows[i].EpochSeconds, c.Rows[j].EpochSeconds
	if a <= 0 || b <= 0 {
		return 0
	}
	return a / b
}
