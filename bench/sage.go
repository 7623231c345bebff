package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// sageConfig sizes workload (b).
type sageConfig struct {
	Nodes, Edges, Feats, Classes, Hidden, Batch int
	Fanouts                                     []int
}

// sageSetup is one sampled batch and a fresh model for it.
type sageSetup struct {
	blocks []*graph.Block
	x, y   *tensor.Tensor
	build  func() (*nn.GraphSAGE, *optim.Adam)
	edges  int // sampled edges, all blocks
}

// newSAGESetup builds a synthetic products-like graph (datasets.Synthetic:
// class-homophilous SBM with sparse binary row-normalised features), samples
// the blocks of Batch random seeds with cfg.Fanouts and gathers their input
// features and labels. The model is GraphSAGE-mean, len(Fanouts) layers,
// Hidden units, no dropout (so both sides compute the same loss), Adam lr
// 0.01, weight decay 5e-4, weights from seed 0.
func newSAGESetup(cfg sageConfig) (*sageSetup, error) {
	d, err := datasets.Synthetic(datasets.SyntheticOptions{NumNodes: cfg.Nodes, NumEdges: cfg.Edges,
		NumFeatures: cfg.Feats, NumClasses: cfg.Classes, Homophily: 0.8, WordsPerRow: 18,
		NumTrain: 1, NumVal: 0, NumTest: 0, Seed: 1})
	if err != nil {
		return nil, err
	}
	g := d.Graph
	perm := rand.New(rand.NewPCG(1, 2)).Perm(cfg.Nodes)
	seeds := make([]int64, min(cfg.Batch, cfg.Nodes))
	for i := range seeds {
		seeds[i] = int64(perm[i])
	}
	blocks, err := sampling.NeighborSampler{Fanouts: cfg.Fanouts}.SampleBlocks(g, seeds, 1)
	if err != nil {
		return nil, err
	}
	s := &sageSetup{blocks: blocks}
	s.x = tensor.IndexSelect(g.NData("feat"), blocks[0].SrcNodes())
	s.y = tensor.IndexSelect(g.NData("label"), blocks[len(blocks)-1].DstNodes())
	for _, b := range blocks {
		s.edges += b.NumEdges()
	}
	s.build = func() (*nn.GraphSAGE, *optim.Adam) {
		m := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: cfg.Feats, HiddenFeats: cfg.Hidden, OutFeats: cfg.Classes,
			NumLayers: len(cfg.Fanouts), Seed: 0})
		m.Train()
		return m, optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	}
	return s, nil
}

// step runs one training step and returns the loss before the update.
func (s *sageSetup) step(m *nn.GraphSAGE, opt *optim.Adam) float64 {
	loss := tensor.CrossEntropy(m.ForwardBlocks(s.blocks, s.x), s.y)
	opt.ZeroGrad()
	loss.Backward()
	opt.Step()
	return loss.Item()
}

// losses returns the losses of the first two steps from the initial weights.
func (s *sageSetup) losses() [2]float64 {
	m, opt := s.build()
	return [2]float64{s.step(m, opt), s.step(m, opt)}
}

// times times reps steps after warmup untimed ones.
func (s *sageSetup) times(warmup, reps int) []float64 {
	m, opt := s.build()
	for i := 0; i < warmup; i++ {
		s.step(m, opt)
	}
	ts := make([]float64, reps)
	for i := range ts {
		t0 := time.Now()
		s.step(m, opt)
		ts[i] = time.Since(t0).Seconds()
	}
	return ts
}

// sageManifest is manifest.json of an exported batch.
type sageManifest struct {
	Blocks []struct {
		NumSrc int `json:"num_src"`
		NumDst int `json:"num_dst"`
	} `json:"blocks"`
	Params []struct {
		Name  string `json:"name"`
		Shape []int  `json:"shape"`
	} `json:"params"`
	LR          float64 `json:"lr"`
	WeightDecay float64 `json:"weight_decay"`
}

// export writes the batch for py/sage_step.py into dir:
//
//	manifest.json            block sizes, parameter names and shapes, Adam's lr and weight decay
//	src_nodes.npy            (S) int64 parent ids of blocks[0]'s source nodes
//	block<i>_indptr.npy      (NumDst_i + 1) int64, destination-major CSR of block i
//	block<i>_indices.npy     (E_i) int64 block-local source ids
//	feat.npy                 (S, F) float32 input features of blocks[0]'s sources
//	label.npy                (B) int64 labels of the seeds
//	param_<name>.npy         initial value of each parameter, gnnrepl layout:
//	                         Linear weights (in, out), so y = x @ W + b
func (s *sageSetup) export(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var man sageManifest
	man.LR, man.WeightDecay = 0.01, 5e-4
	w := func(name string, data any, shape ...int) error {
		return writeNPY(filepath.Join(dir, name+".npy"), data, shape...)
	}
	if err := w("src_nodes", s.blocks[0].SrcNodeIDs(), s.blocks[0].NumSrcNodes()); err != nil {
		return err
	}
	for i, b := range s.blocks {
		a := b.Adj()
		man.Blocks = append(man.Blocks, struct {
			NumSrc int `json:"num_src"`
			NumDst int `json:"num_dst"`
		}{a.NumSrc, a.NumDst})
		if err := w(fmt.Sprintf("block%d_indptr", i), a.Indptr, len(a.Indptr)); err != nil {
			return err
		}
		if err := w(fmt.Sprintf("block%d_indices", i), a.Indices, len(a.Indices)); err != nil {
			return err
		}
	}
	if err := w("feat", s.x.Float32s(), s.x.Shape()...); err != nil {
		return err
	}
	if err := w("label", s.y.Int64s(), s.y.Shape()...); err != nil {
		return err
	}
	m, _ := s.build()
	for _, p := range m.NamedParameters() {
		man.Params = append(man.Params, struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
		}{p.Name, p.Param.Shape()})
		if err := w("param_"+p.Name, p.Param.Float32s(), p.Param.Shape()...); err != nil {
			return err
		}
	}
	b, _ := json.MarshalIndent(man, "", " ")
	return os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644)
}
