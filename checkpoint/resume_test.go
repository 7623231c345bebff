package checkpoint

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/amp"
	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func loadCora(t testing.TB) *datasets.Dataset {
	t.Helper()
	d, err := datasets.LoadPlanetoid("cora", shareddata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// paramBits returns every parameter's float32 bits, by name.
func paramBits(m nn.Module) map[string][]float32 {
	out := map[string][]float32{}
	for _, p := range m.NamedParameters() {
		out[p.Name] = slices.Clone(p.Param.ToCPU().Float32s())
	}
	return out
}

func sameBits(t *testing.T, what string, got, want map[string][]float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d parameters, want %d", what, len(got), len(want))
	}
	for k, w := range want {
		g := got[k]
		for i := range w {
			if g[i] != w[i] { // bit-identical: the same float32 values
				t.Fatalf("%s: %s[%d] = %v after resuming, %v uninterrupted", what, k, i, g[i], w[i])
			}
		}
	}
}

// fullRun is full-graph training on Cora: a GCN with Adam and StepLR in
// float32, or a GraphSAGE with Adam, ReduceLROnPlateau and float16
// autocast with a GradScaler; both with dropout.
type fullRun struct {
	ds      *datasets.Dataset
	model   nn.GraphModel
	opt     optim.Optimizer
	step    optim.LRScheduler
	plateau *optim.ReduceLROnPlateau
	scaler  *amp.GradScaler
	fp16    bool
}

func newFullRun(ds *datasets.Dataset, arch string, seed int64) *fullRun {
	r := &fullRun{ds: ds}
	switch arch {
	case "gcn":
		r.model = nn.NewGCN(nn.GCNOptions{InFeats: ds.NumFeatures, HiddenFeats: 16, OutFeats: ds.NumClasses, Dropout: 0.5, InputDropout: 0.5, Seed: seed})
		r.opt = optim.NewAdam(r.model.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
		r.step = optim.NewStepLR(r.opt, 3, 0.5)
		r.scaler = amp.NewGradScaler(amp.GradScalerOptions{Disabled: true})
	case "sage":
		r.model = nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 16, OutFeats: ds.NumClasses, Aggregator: "mean", Dropout: 0.5, InputDropout: 0.5, Seed: seed})
		r.opt = optim.NewAdam(r.model.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
		r.plateau = optim.NewReduceLROnPlateau(r.opt, optim.ReduceLROnPlateauOptions{Factor: 0.5, Patience: 1, Threshold: 0.05})
		r.scaler = amp.NewGradScaler(amp.GradScalerOptions{InitScale: 1 << 20, GrowthInterval: 2})
		r.fp16 = true
	}
	return r
}

func (r *fullRun) state() State {
	s := State{Model: r.model, Optimizer: r.opt, Scaler: r.scaler}
	if r.step != nil {
		s.Scheduler = r.step
	} else {
		s.Scheduler = r.plateau
	}
	return s
}

func (r *fullRun) train(n int) {
	g, x, y := r.ds.Graph, r.ds.Graph.NData("feat"), r.ds.Graph.NData("label")
	for i := 0; i < n; i++ {
		r.model.Train()
		r.opt.ZeroGrad()
		var loss *tensor.Tensor
		f := func() { loss = nn.MaskedCrossEntropy(r.model.Forward(g, x), y, r.ds.TrainIdx) }
		if r.fp16 {
			amp.Autocast(tensor.Float16, f)
		} else {
			f()
		}
		r.scaler.Scale(loss).Backward()
		r.scaler.Step(r.opt)
		r.scaler.Update()
		if r.step != nil {
			r.step.Step()
		} else {
			r.plateau.Step(loss.Item())
		}
	}
}

// TestResumeFullGraph trains N steps uninterrupted, and k steps, a Save,
// a Load into objects built afresh (with another seed, so that nothing
// but the file carries the state) and N-k more: the parameters must be
// bit-identical.
func TestResumeFullGraph(t *testing.T) {
	ds := loadCora(t)
	const n, k = 12, 5
	for _, arch := range []string{"gcn", "sage"} {
		t.Run(arch, func(t *testing.T) {
			ref := newFullRun(ds, arch, 1)
			ref.train(n)
			want := paramBits(ref.model)

			a := newFullRun(ds, arch, 1)
			a.train(k)
			path := filepath.Join(t.TempDir(), "ckpt.safetensors")
			st := a.state()
			st.Meta = map[string]string{"step": fmt.Sprint(k)}
			if err := Save(path, st); err != nil {
				t.Fatal(err)
			}
			b := newFullRun(ds, arch, 77)
			bs := b.state()
			if err := Load(path, &bs); err != nil {
				t.Fatal(err)
			}
			if bs.Meta["step"] != "5" || len(bs.Meta) != 1 {
				t.Errorf("Meta after Load: %v", bs.Meta)
			}
			b.train(n - k)
			sameBits(t, arch, paramBits(b.model), want)
			if got, w := b.scaler.GetScale(), ref.scaler.GetScale(); got != w {
				t.Errorf("GradScaler scale %g after resuming, %g uninterrupted", got, w)
			}
			if got, w := b.opt.ParamGroups()[0].LR, ref.opt.ParamGroups()[0].LR; got != w {
				t.Errorf("LR %v after resuming, %v uninterrupted", got, w)
			}
			if got, w := b.opt.ParamGroups()[0].LR, 0.01; arch == "sage" && got == w {
				t.Errorf("ReduceLROnPlateau never reduced the LR; the test does not exercise it")
			}
		})
	}
}

// TestResumeSampled trains GraphSAGE on sampled Cora blocks with a
// shuffling DataLoader and saves in the middle of the second epoch; the
// resumed run must hand out the same batches and end bit-identical.
func TestResumeSampled(t *testing.T) {
	ds := loadCora(t)
	g := ds.Graph
	feat, labels := g.NData("feat"), g.NData("label")
	type run struct {
		m   *nn.GraphSAGE
		opt optim.Optimizer
		sch optim.LRScheduler
		dl  *sampling.DataLoader
	}
	newRun := func(seed int64) *run {
		m := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 16, OutFeats: ds.NumClasses, Aggregator: "mean", Dropout: 0.5, Seed: seed})
		opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01})
		dl, err := sampling.NewDataLoader(g, ds.TrainIdx, sampling.NeighborSampler{Fanouts: []int{5, 5}},
			sampling.LoaderOptions{BatchSize: 32, Shuffle: true, Seed: 3, NumWorkers: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dl.Close() })
		return &run{m, opt, optim.NewCosineAnnealingLR(opt, 8, 0.001), dl}
	}
	// steps runs n batches, stepping the scheduler after each epoch.
	steps := func(r *run, n int) {
		for i := 0; i < n; {
			if !r.dl.Next() {
				if err := r.dl.Err(); err != nil {
					t.Fatal(err)
				}
				r.sch.Step()
				continue
			}
			r.m.Train()
			x := tensor.IndexSelect(feat, r.dl.InputNodes())
			y := tensor.IndexSelect(labels, r.dl.OutputNodes())
			r.opt.ZeroGrad()
			tensor.CrossEntropy(r.m.ForwardBlocks(r.dl.Blocks(), x), y).Backward()
			r.opt.Step()
			i++
		}
	}
	ref := newRun(1)
	perEpoch := ref.dl.Len() // 5 batches of Cora's 140 training nodes
	n, k := 3*perEpoch, perEpoch+2
	steps(ref, n)
	a := newRun(1)
	steps(a, k)
	path := filepath.Join(t.TempDir(), "sampled.safetensors")
	if err := Save(path, State{Model: a.m, Optimizer: a.opt, Scheduler: a.sch, Loader: a.dl}); err != nil {
		t.Fatal(err)
	}
	b := newRun(5)
	if err := Load(path, &State{Model: b.m, Optimizer: b.opt, Scheduler: b.sch, Loader: b.dl}); err != nil {
		t.Fatal(err)
	}
	if e, i := b.dl.StateDict()["epoch"], b.dl.StateDict()["batch"]; e != 1 || i != 2 {
		t.Errorf("loader position after Load: epoch %v batch %v, want 1 2", e, i)
	}
	steps(b, n-k)
	sameBits(t, "sampled GraphSAGE", paramBits(b.m), paramBits(ref.m))
}
