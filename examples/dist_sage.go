//go:build ignore

// Distributed GraphSAGE on a partitioned Cora (DGL's DistGraph +
// DistNodeDataLoader + DDP): every rank opens its METIS part, samples its
// shard of each epoch's training seeds across the parts (frontier requests
// and input features go to the owning ranks over all-to-all), and
// DataParallel averages the gradients. The first epoch's blocks are
// checked against the single-process sampler on the whole graph (equal
// node for node), and the model is evaluated on the whole graph.
//
// GNNREPL_DIST_PARTS names a partition config (dist.PartitionGraph's
// JSON) with as many parts as ranks; without it rank 0 partitions Cora
// with METIS into a temporary folder first.
//
//	gnnrepl --data ../shared/data run examples/dist_sage.go
//	mpirun --allow-run-as-root --oversubscribe -np 2 gnnrepl --data ../shared/data run examples/dist_sage.go
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/dist"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func main() {
	comm := dist.World()
	ds, err := datasets.LoadPlanetoid("cora", "")
	if err != nil {
		panic(err)
	}
	g := ds.Graph
	cfg := os.Getenv("GNNREPL_DIST_PARTS")
	if cfg == "" {
		// Rank 0 partitions; the folder name comes from rank 0's clock.
		stamp := []int64{time.Now().UnixNano()}
		if err := comm.BroadcastInt64s(stamp, 0); err != nil {
			panic(err)
		}
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("gnnrepl-cora-parts-%d", stamp[0]))
		cfg = filepath.Join(dir, "cora.json")
		if comm.Rank() == 0 {
			defer os.RemoveAll(dir)
			method := "metis"
			if _, err := dist.METISAvailable(); err != nil {
				method = "random"
			}
			p, _, err := dist.PartitionGraph(g, "cora", dir, dist.PartitionOptions{NumParts: comm.Size(), PartMethod: method, BalanceNtypes: "train_mask", Seed: 1})
			if err != nil {
				panic(err)
			}
			fmt.Println(p)
		}
		if err := comm.Barrier(); err != nil {
			panic(err)
		}
	}
	dg, err := dist.OpenDistGraph(cfg, comm)
	if err != nil {
		panic(err)
	}
	defer dg.Close()
	fmt.Printf("rank %d: %v\n", comm.Rank(), dg)

	sampler := sampling.NeighborSampler{Fanouts: []int{10, 10}}
	opts := sampling.LoaderOptions{BatchSize: 32 / comm.Size(), Shuffle: true, Seed: 1,
		PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}}
	loader, err := dist.NewDistNodeDataLoader(dg, ds.TrainIdx, sampler, opts)
	if err != nil {
		panic(err)
	}
	// The single-process sampler over the whole graph, for the check.
	opts.Shard = comm.Shard()
	single, err := sampling.NewDataLoader(g, ds.TrainIdx, sampler, opts)
	if err != nil {
		panic(err)
	}

	sage := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 64, OutFeats: ds.NumClasses, Dropout: 0.5, Seed: 0})
	ddp, err := dist.DataParallel(sage, comm)
	if err != nil {
		panic(err)
	}
	adam := optim.NewAdam(ddp.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	equal, checked := 0, 0
	start := time.Now()
	for epoch := 0; epoch < 10; epoch++ {
		sage.Train()
		for loader.Next() {
			blocks := loader.Blocks()
			if epoch == 0 && single.Next() {
				sb := single.Blocks()
				same := true
				for i := range blocks {
					same = same && equalInt64s(blocks[i].SrcNodeIDs(), sb[i].SrcNodeIDs()) &&
						equalInt64s(blocks[i].Adj().Indices, sb[i].Adj().Indices) &&
						equalInt64s(blocks[i].EIDs().Int64s(), sb[i].EIDs().Int64s())
				}
				same = same && equalFloat32s(blocks[0].SrcData("feat").Float32s(), sb[0].SrcData("feat").Float32s())
				checked++
				if same {
					equal++
				}
			}
			loss := tensor.CrossEntropy(sage.ForwardBlocks(blocks, blocks[0].SrcData("feat")), blocks[len(blocks)-1].DstData("label"))
			adam.ZeroGrad()
			loss.Backward()
			if err := ddp.SyncGradients(); err != nil {
				panic(err)
			}
			adam.Step()
		}
		if err := loader.Err(); err != nil {
			panic(err)
		}
	}
	if err := ddp.CheckParametersIdentical(); err != nil {
		panic(err)
	}
	counts := []int64{int64(equal), int64(checked)}
	if err := comm.AllReduceInt64s(counts, "sum"); err != nil {
		panic(err)
	}
	sage.Eval()
	var out *tensor.Tensor
	tensor.NoGrad(func() { out = sage.Forward(g, g.NData("feat")) })
	test := tensor.Accuracy(tensor.IndexSelect(out, ds.TestIdx), tensor.IndexSelect(g.NData("label"), ds.TestIdx))
	if comm.Rank() == 0 {
		fmt.Printf("%d rank(s), %d batches per epoch, %.2f s; first epoch: %d of %d batches' blocks equal to the single-process sampler's\n",
			comm.Size(), loader.Len(), time.Since(start).Seconds(), counts[0], counts[1])
		if counts[0] != counts[1] {
			panic("distributed blocks differ from the single-process sampler's")
		}
		fmt.Printf("test accuracy: %.4f\n", test)
	}
}

func equalInt64s(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalFloat32s(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
