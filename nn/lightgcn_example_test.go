package nn_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// LightGCN on a toy user-item graph: users 0 and 1, items 2, 3 and 4 (in
// practice datasets.RecDataset.UserItemGraph builds it), trained with BPR
// to rank user 0's item 2 above item 4, which it never interacted with.
func ExampleLightGCN() {
	// Interactions u0-i2, u0-i3, u1-i3, u1-i4, in both directions.
	g, _ := graph.New(5, []int64{0, 0, 1, 1, 2, 3, 3, 4}, []int64{2, 3, 3, 4, 0, 0, 1, 1})
	pos, _ := graph.New(5, []int64{0, 0, 1, 1}, []int64{2, 3, 3, 4})
	neg, _ := graph.New(5, []int64{0, 0, 1, 1}, []int64{4, 4, 2, 2})
	m := nn.NewLightGCN(nn.LightGCNOptions{NumNodes: 5, EmbeddingDim: 8, NumLayers: 2, Seed: 0})
	fmt.Println(m)
	pred := nn.NewDotPredictor()
	opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.05})
	for step := 0; step < 50; step++ {
		h := m.Forward(g)
		loss := nn.BPRLoss(pred.Forward(pos, h), pred.Forward(neg, h))
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	var s *tensor.Tensor
	tensor.NoGrad(func() {
		q, _ := graph.New(5, []int64{0, 0}, []int64{2, 4})
		s = pred.Forward(q, m.Forward(g))
	})
	fmt.Println("user 0 prefers item 2 to item 4:", s.Float32s()[0] > s.Float32s()[1])
	// Output:
	// LightGCN(5, 8, num_layers=2)
	// user 0 prefers item 2 to item 4: true
}
