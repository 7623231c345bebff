//go:build ignore

// Data-parallel GraphSAGE on Cora (torch DDP / DGL use_ddp): every rank
// trains a replica on its shard of each epoch's shuffled training seeds,
// DataParallel averages the gradients with all-reduce after backward, and
// the replicas stay bit-identical (checked by all-gathering a checksum).
// Before its final metric line, rank 0 prints the mean per-step times
// ("step compute ms", "step wait ms": waiting for the slowest rank,
// "step allreduce ms") and the gradient bytes all-reduced per step.
// The same file runs on one process (dist.World() falls back to size 1)
// and under MPI:
//
//	gnnrepl --data ../shared/data run examples/ddp_cora.go
//	mpirun --allow-run-as-root --oversubscribe -np 2 gnnrepl --data ../shared/data run examples/ddp_cora.go
package main

import (
	"fmt"
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
	if comm.Rank() == 0 {
		fmt.Printf("%d rank(s): %s\n", comm.Size(), comm.Backend())
	}
	ds, err := datasets.LoadPlanetoid("cora", "")
	if err != nil {
		panic(err)
	}
	g := ds.Graph
	// The same Seed on every rank: one shuffle per epoch, cut into shards.
	loader, err := sampling.NewDataLoader(g, ds.TrainIdx, sampling.NeighborSampler{Fanouts: []int{15, 10}},
		sampling.LoaderOptions{BatchSize: 32 / comm.Size(), Shuffle: true, Seed: 1, Shard: comm.Shard(),
			PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
	if err != nil {
		panic(err)
	}
	sage := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 64, OutFeats: ds.NumClasses, Dropout: 0.5, Seed: 0})
	ddp, err := dist.DataParallel(sage, comm)
	if err != nil {
		panic(err)
	}
	adam := optim.NewAdam(ddp.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	feat, labels := g.NData("feat"), g.NData("label")
	bestVal, testAcc := 0.0, 0.0
	// Per-step timing for a scaling model: compute (sampling, forward,
	// backward, optimizer step), the wait for the slowest rank (a barrier
	// before the gradient sync) and the gradient all-reduce itself.
	var computeTime, waitTime, syncTime time.Duration
	steps := 0
	start := time.Now()
	for epoch := 0; epoch < 20; epoch++ {
		sage.Train()
		for {
			t0 := time.Now()
			if !loader.Next() {
				break
			}
			blocks := loader.Blocks()
			loss := tensor.CrossEntropy(sage.ForwardBlocks(blocks, blocks[0].SrcData("feat")), blocks[len(blocks)-1].DstData("label"))
			adam.ZeroGrad()
			loss.Backward()
			computeTime += time.Since(t0)
			t1 := time.Now()
			if err := comm.Barrier(); err != nil {
				panic(err)
			}
			waitTime += time.Since(t1)
			t2 := time.Now()
			if err := ddp.SyncGradients(); err != nil {
				panic(err)
			}
			syncTime += time.Since(t2)
			t3 := time.Now()
			adam.Step()
			computeTime += time.Since(t3)
			steps++
		}
		if err := loader.Err(); err != nil {
			panic(err)
		}
		sage.Eval()
		var out *tensor.Tensor
		tensor.NoGrad(func() { out = sage.Forward(g, feat) })
		val := tensor.Accuracy(tensor.IndexSelect(out, ds.ValIdx), tensor.IndexSelect(labels, ds.ValIdx))
		if val > bestVal {
			bestVal = val
			testAcc = tensor.Accuracy(tensor.IndexSelect(out, ds.TestIdx), tensor.IndexSelect(labels, ds.TestIdx))
		}
	}
	if err := ddp.CheckParametersIdentical(); err != nil {
		panic(err)
	}
	if comm.Rank() == 0 {
		fmt.Printf("parameters bit-identical on %d rank(s); %d steps per epoch, %.2f s, %.1f%% in gradient all-reduce\n",
			comm.Size(), loader.Len(), time.Since(start).Seconds(), 100*syncTime.Seconds()/time.Since(start).Seconds())
		ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(max(steps, 1)) }
		gradBytes := 0
		for _, p := range ddp.Parameters() {
			gradBytes += 4 * p.Numel()
		}
		fmt.Printf("gradient bytes per step: %d\n", gradBytes)
		fmt.Printf("step compute ms: %.3f\n", ms(computeTime))
		fmt.Printf("step wait ms: %.3f\n", ms(waitTime))
		fmt.Printf("step allreduce ms: %.3f\n", ms(syncTime))
		fmt.Printf("best validation accuracy: %.4f\n", bestVal)
		fmt.Printf("test accuracy: %.4f\n", testAcc)
	}
}
