package dist

import (
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// trainSAGE trains GraphSAGE on Cora for epochs epochs data-parallel over
// c, each rank on its shard of the training seeds, and returns the model
// and its test accuracy. seed differs per rank in the MPI test, to check
// that DataParallel's broadcast makes the replicas start equal.
func trainSAGE(t *testing.T, c *Comm, epochs int, seed int64) (*DDP, float64) {
	t.Helper()
	ds, err := datasets.LoadPlanetoid("cora", shareddata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	g := ds.Graph
	loader, err := sampling.NewDataLoader(g, ds.TrainIdx, sampling.NeighborSampler{Fanouts: []int{10, 5}},
		sampling.LoaderOptions{BatchSize: 16, Shuffle: true, Seed: 1, Shard: c.Shard(),
			PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
	if err != nil {
		t.Fatal(err)
	}
	sage := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 32, OutFeats: ds.NumClasses, Dropout: 0.5, Seed: seed})
	ddp, err := DataParallel(sage, c)
	if err != nil {
		t.Fatal(err)
	}
	adam := optim.NewAdam(ddp.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	for epoch := 0; epoch < epochs; epoch++ {
		sage.Train()
		for loader.Next() {
			blocks := loader.Blocks()
			loss := tensor.CrossEntropy(sage.ForwardBlocks(blocks, blocks[0].SrcData("feat")), blocks[len(blocks)-1].DstData("label"))
			adam.ZeroGrad()
			loss.Backward()
			if err := ddp.SyncGradients(); err != nil {
				t.Fatal(err)
			}
			adam.Step()
		}
		if err := loader.Err(); err != nil {
			t.Fatal(err)
		}
	}
	sage.Eval()
	var out *tensor.Tensor
	tensor.NoGrad(func() { out = sage.Forward(g, g.NData("feat")) })
	acc := tensor.Accuracy(tensor.IndexSelect(out, ds.TestIdx), tensor.IndexSelect(g.NData("label"), ds.TestIdx))
	return ddp, acc
}

// TestMPIChildDataParallel: replicas seeded differently start equal after
// DataParallel and stay bit-identical through training.
func TestMPIChildDataParallel(t *testing.T) {
	c := mpiChild(t)
	ddp, acc := trainSAGE(t, c, 10, int64(c.Rank()))
	if err := ddp.CheckParametersIdentical(); err != nil {
		t.Fatal(err)
	}
	t.Logf("rank %d of %d: GraphSAGE on Cora, 10 epochs data parallel: test accuracy %.4f, parameter checksum %x", c.Rank(), c.Size(), acc, ddp.ParameterChecksum())
}

// TestDataParallelSingle: with the single-process communicator DataParallel
// is a no-op wrapper and training works.
func TestDataParallelSingle(t *testing.T) {
	c := &Comm{size: 1, note: "test"}
	ddp, acc := trainSAGE(t, c, 10, 0)
	if err := ddp.CheckParametersIdentical(); err != nil {
		t.Fatal(err)
	}
	if acc < 0.7 {
		t.Errorf("test accuracy %.4f after 10 epochs", acc)
	}
	t.Logf("single process: test accuracy %.4f, checksum %x", acc, ddp.ParameterChecksum())
}
