package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gnnrepl/gnnrepl/checkpoint"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Save a model, its Adam state and its scheduler after a training step,
// and restore them into freshly built objects, as a resumed session does.
func Example() {
	dir, _ := os.MkdirTemp("", "ckpt")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.safetensors")

	g, _ := graph.New(4, []int64{0, 1, 2, 3}, []int64{1, 2, 3, 0})
	x := tensor.Randn(tensor.NewGenerator(0), 4, 3)
	build := func() (*nn.GCN, optim.Optimizer, optim.LRScheduler) {
		m := nn.NewGCN(nn.GCNOptions{InFeats: 3, HiddenFeats: 8, OutFeats: 2, Dropout: 0.5, Seed: 1})
		opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01})
		return m, opt, optim.NewStepLR(opt, 1, 0.5)
	}
	model, opt, sched := build()
	opt.ZeroGrad()
	tensor.Sum(model.Forward(g, x)).Backward()
	opt.Step()
	sched.Step()
	err := checkpoint.Save(path, checkpoint.State{Model: model, Optimizer: opt, Scheduler: sched,
		Meta: map[string]string{"epoch": "1"}})
	fmt.Println("saved:", err)

	model2, opt2, sched2 := build()
	st := checkpoint.State{Model: model2, Optimizer: opt2, Scheduler: sched2}
	err = checkpoint.Load(path, &st)
	fmt.Println("loaded:", err, "epoch", st.Meta["epoch"], "lr", opt2.ParamGroups()[0].LR)

	// The weights are a PyTorch state dict.
	tensors, _, _ := checkpoint.LoadFile(path)
	fmt.Println(tensors["layers.0.weight"].Shape(), tensors["optimizer.state.0.step"].Int64s())
	// Output:
	// saved: <nil>
	// loaded: <nil> epoch 1 lr 0.005
	// [3 8] [1]
}
