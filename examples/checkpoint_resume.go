//go:build ignore

// Checkpoint and resume (package checkpoint): minibatch GraphSAGE on Cora
// with Adam, a cosine schedule and a shuffling DataLoader, saved in the
// middle of an epoch and loaded into objects built afresh, as a new
// session would; the resumed run ends with the same weights, bit for bit,
// as the run that never stopped.
//
//	gnnrepl --data ../shared/data run examples/checkpoint_resume.go
package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/gnnrepl/gnnrepl/checkpoint"
	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

type run struct {
	model  *nn.GraphSAGE
	opt    optim.Optimizer
	sched  optim.LRScheduler
	loader *sampling.DataLoader
}

func newRun(ds *datasets.Dataset) *run {
	m := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 16, OutFeats: ds.NumClasses,
		Aggregator: "mean", Dropout: 0.5, Seed: 0})
	opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	dl, err := sampling.NewDataLoader(ds.Graph, ds.TrainIdx, sampling.NeighborSampler{Fanouts: []int{10, 10}},
		sampling.LoaderOptions{BatchSize: 32, Shuffle: true, Seed: 0, PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
	if err != nil {
		panic(err)
	}
	return &run{m, opt, optim.NewCosineAnnealingLR(opt, 20, 0), dl}
}

// train runs n minibatch steps; the schedule steps once per epoch.
func (r *run) train(n int) {
	for i := 0; i < n; {
		if !r.loader.Next() {
			if err := r.loader.Err(); err != nil {
				panic(err)
			}
			r.sched.Step()
			continue
		}
		blocks := r.loader.Blocks()
		r.model.Train()
		logits := r.model.ForwardBlocks(blocks, blocks[0].SrcData("feat"))
		loss := tensor.CrossEntropy(logits, blocks[len(blocks)-1].DstData("label"))
		r.opt.ZeroGrad()
		loss.Backward()
		r.opt.Step()
		i++
	}
}

func main() {
	ds, err := datasets.LoadPlanetoid("cora", "")
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "checkpoint-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sage.safetensors")

	total, stop := 60, 27 // 5 batches per epoch: stop in the middle of epoch 5
	ref := newRun(ds)
	ref.train(total)

	a := newRun(ds)
	a.train(stop)
	st := checkpoint.State{Model: a.model, Optimizer: a.opt, Scheduler: a.sched, Loader: a.loader,
		Meta: map[string]string{"step": fmt.Sprint(stop)}}
	if err := checkpoint.Save(path, st); err != nil {
		panic(err)
	}
	info, _ := os.Stat(path)
	fmt.Printf("saved step %d to %s (%d bytes)\n", stop, filepath.Base(path), info.Size())

	b := newRun(ds)
	st = checkpoint.State{Model: b.model, Optimizer: b.opt, Scheduler: b.sched, Loader: b.loader}
	if err := checkpoint.Load(path, &st); err != nil {
		panic(err)
	}
	fmt.Printf("resumed at step %s: epoch %d, lr %.6f\n", st.Meta["step"], b.loader.Epoch(), b.opt.ParamGroups()[0].LR)
	b.train(total - stop)

	maxDiff := 0.0
	want := ref.model.Parameters()
	for i, p := range b.model.Parameters() {
		w := want[i].Float32s()
		for j, v := range p.Float32s() {
			maxDiff = math.Max(maxDiff, math.Abs(float64(v-w[j])))
		}
	}
	if maxDiff != 0 {
		panic(fmt.Sprintf("the resumed run differs from the uninterrupted one by up to %g", maxDiff))
	}
	fmt.Printf("max weight difference resumed vs uninterrupted: %g\n", maxDiff)
}
