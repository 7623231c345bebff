//go:build ignore

// Heterogeneous node classification on ACM in HeCo's layout (papers,
// authors, subjects; 20 labelled papers per class, 1,000 validation and
// 1,000 test papers): the paper and author features are averaged along
// the metapaths PA, PAP, PSP, PAPA and PSPA once (nn.MetapathMean, the
// neighbor aggregation of SeHGNN and NARS), and a SIGN model (one linear
// projection per metapath, concatenated, ReLU, a linear classifier) is
// trained on the 60 training papers for 200 epochs of Adam; the epoch with
// the best validation Macro-F1 gives the test Macro-F1 (HeCo reports
// 88.56; 0.8931 here for seed 0, mean 0.8939 over 5 seeds).
//
//	gnnrepl --data ../shared/data run examples/sign_acm.go
package main

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/metrics"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func main() {
	ds, err := datasets.LoadACM("")
	if err != nil {
		panic(err)
	}
	g := ds.Graph
	fmt.Println(ds)

	// The operators: the papers' own features, then features of the first
	// node type of each metapath averaged along it to the papers.
	paper, author := g.NDataOf("paper", "feat"), g.NDataOf("author", "feat")
	xs := []*tensor.Tensor{
		paper,
		nn.MetapathMean(g, []string{"author-paper"}, author),
		nn.MetapathMean(g, []string{"paper-author", "author-paper"}, paper),
		nn.MetapathMean(g, []string{"paper-subject", "subject-paper"}, paper),
		nn.MetapathMean(g, []string{"author-paper", "paper-author", "author-paper"}, author),
		nn.MetapathMean(g, []string{"author-paper", "paper-subject", "subject-paper"}, author),
	}
	rows := func(idx *tensor.Tensor) []*tensor.Tensor {
		out := make([]*tensor.Tensor, len(xs))
		for i, x := range xs {
			out[i] = tensor.IndexSelect(x, idx)
		}
		return out
	}
	xtr, xva, xte := rows(ds.TrainIdx), rows(ds.ValIdx), rows(ds.TestIdx)
	ytr := tensor.IndexSelect(ds.Labels, ds.TrainIdx)
	yva := tensor.IndexSelect(ds.Labels, ds.ValIdx)
	yte := tensor.IndexSelect(ds.Labels, ds.TestIdx)

	in := make([]int, len(xs))
	for i, x := range xs {
		in[i] = x.Size(1)
	}
	model := nn.NewSIGN(nn.SIGNOptions{InFeats: in, HiddenFeats: 64, OutFeats: ds.NumClasses,
		InputDropout: 0.5, Dropout: 0.5, Seed: 0})
	fmt.Println(model)
	opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	bestVal, testMa, testMi := -1.0, 0.0, 0.0
	for epoch := 0; epoch < 200; epoch++ {
		model.Train()
		loss := tensor.CrossEntropy(model.Forward(xtr), ytr)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
		if epoch%5 != 4 {
			continue
		}
		model.Eval()
		tensor.NoGrad(func() {
			val, err := metrics.MacroF1(model.Forward(xva), yva)
			if err != nil {
				panic(err)
			}
			if val > bestVal {
				bestVal = val
				out := model.Forward(xte)
				testMa, _ = metrics.MacroF1(out, yte)
				testMi, _ = metrics.MicroF1(out, yte)
			}
		})
		if epoch%50 == 49 {
			fmt.Printf("epoch %d: loss %.4f, best val macro-f1 %.4f\n", epoch+1, loss.Item(), bestVal)
		}
	}
	fmt.Printf("test micro-f1: %.4f\n", testMi)
	fmt.Printf("test macro-f1: %.4f\n", testMa)
}
