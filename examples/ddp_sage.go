//go:build ignore

// Data-parallel GraphSAGE (torch DDP, DGL's use_ddp) with per-epoch
// checkpoints: every rank trains a replica on its shard of each epoch's
// shuffled training seeds, DataParallel averages the gradients with
// all-reduce after backward, and the replicas stay bit-identical (checked
// at the end by all-gathering a checksum). The same file runs alone
// (dist.World() falls back to one rank) and under MPI:
//
//	gnnrepl --data ../shared/data run examples/ddp_sage.go
//	mpirun -np 2 gnnrepl --data ../shared/data run examples/ddp_sage.go
//	srun -n 2 gnnrepl --data ../shared/data run examples/ddp_sage.go
//
// (as root add --allow-run-as-root to mpirun; --oversubscribe for more
// ranks than cores). Settings come from the environment, since `gnnrepl
// run` takes no arguments (mpirun passes it to every rank; with Open MPI
// add -x NAME for remote hosts):
//
//	DDP_SAGE_DATASET     cora, citeseer or pubmed (default pubmed)
//	DDP_SAGE_EPOCHS      epochs (default 20)
//	DDP_SAGE_CHECKPOINT  a path: written after every epoch by rank 0
//	                     (comm.SaveCheckpoint, atomic), and resumed from
//	                     when it exists (comm.LoadCheckpoint), so a job
//	                     restarted after a failure ends exactly as one that
//	                     never stopped. It must be on a file system every
//	                     rank sees, and a resumed job needs as many ranks.
//
// A failing rank (a panic, a crash, a kill) ends the whole job within
// seconds, with the rank in mpirun's report; a rank that hangs ends it
// after the collective timeout (GNNREPL_DIST_TIMEOUT, default 30m).
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/gnnrepl/gnnrepl/checkpoint"
	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/dist"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func main() {
	comm := dist.World()
	name := os.Getenv("DDP_SAGE_DATASET")
	if name == "" {
		name = "pubmed"
	}
	epochs := 20
	if v := os.Getenv("DDP_SAGE_EPOCHS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			panic(fmt.Sprintf("DDP_SAGE_EPOCHS=%q: want a positive number", v))
		}
		epochs = n
	}
	ckpt := os.Getenv("DDP_SAGE_CHECKPOINT")
	if comm.Rank() == 0 {
		fmt.Printf("%d rank(s): %s\n", comm.Size(), comm.Backend())
	}
	ds, err := datasets.LoadPlanetoid(name, "")
	if err != nil {
		panic(err)
	}
	g := ds.Graph
	// The same Seed on every rank: one shuffle per epoch, cut into equal
	// shards; the global batch is 64 whatever the number of ranks.
	loader, err := sampling.NewDataLoader(g, ds.TrainIdx, sampling.NeighborSampler{Fanouts: []int{10, 10}},
		sampling.LoaderOptions{BatchSize: max(1, 64/comm.Size()), Shuffle: true, Seed: 1, Shard: comm.Shard(),
			PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
	if err != nil {
		panic(err)
	}
	sage := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 64, OutFeats: ds.NumClasses,
		Aggregator: "mean", Dropout: 0.5, Seed: int64(comm.Rank())})
	ddp, err := dist.DataParallel(sage, comm) // rank 0's initial weights everywhere
	if err != nil {
		panic(err)
	}
	adam := optim.NewAdam(ddp.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})

	// Resume: the model, Adam's moments, the loader's position, every
	// rank's dropout generator, and the best-so-far metrics in Meta.
	st := checkpoint.State{Model: sage, Optimizer: adam, Loader: loader}
	start, bestVal, testAcc := 0, 0.0, 0.0
	if ckpt != "" {
		ok, err := comm.LoadCheckpoint(ckpt, &st)
		if err != nil {
			panic(err)
		}
		if ok {
			start, _ = strconv.Atoi(st.Meta["epoch"])
			bestVal, _ = strconv.ParseFloat(st.Meta["best_val"], 64)
			testAcc, _ = strconv.ParseFloat(st.Meta["test_acc"], 64)
			if comm.Rank() == 0 {
				fmt.Printf("resumed from %s after epoch %d (best validation accuracy %.4f)\n", ckpt, start, bestVal)
			}
		}
	}

	feat, labels := g.NData("feat"), g.NData("label")
	var syncTime, stepTime time.Duration
	steps := 0
	for epoch := start; epoch < epochs; epoch++ {
		sage.Train()
		for loader.Next() {
			t0 := time.Now()
			blocks := loader.Blocks()
			loss := tensor.CrossEntropy(sage.ForwardBlocks(blocks, blocks[0].SrcData("feat")), blocks[len(blocks)-1].DstData("label"))
			adam.ZeroGrad()
			loss.Backward()
			t1 := time.Now()
			if err := ddp.SyncGradients(); err != nil {
				panic(err)
			}
			syncTime += time.Since(t1)
			adam.Step()
			stepTime += time.Since(t0)
			steps++
		}
		if err := loader.Err(); err != nil {
			panic(err)
		}
		// Every rank evaluates the same replica on the whole graph.
		sage.Eval()
		var out *tensor.Tensor
		tensor.NoGrad(func() { out = sage.Forward(g, feat) })
		val := tensor.Accuracy(tensor.IndexSelect(out, ds.ValIdx), tensor.IndexSelect(labels, ds.ValIdx))
		if val > bestVal {
			bestVal = val
			testAcc = tensor.Accuracy(tensor.IndexSelect(out, ds.TestIdx), tensor.IndexSelect(labels, ds.TestIdx))
		}
		if ckpt != "" {
			st.Meta = map[string]string{"epoch": strconv.Itoa(epoch + 1),
				"best_val": strconv.FormatFloat(bestVal, 'g', -1, 64), "test_acc": strconv.FormatFloat(testAcc, 'g', -1, 64)}
			if err := comm.SaveCheckpoint(ckpt, st); err != nil {
				panic(err)
			}
		}
	}
	if err := ddp.CheckParametersIdentical(); err != nil {
		panic(err)
	}
	if comm.Rank() == 0 {
		share := 0.0
		if stepTime > 0 {
			share = 100 * syncTime.Seconds() / stepTime.Seconds()
		}
		fmt.Printf("%s: parameters bit-identical on %d rank(s); %d steps, %.1f ms per step, %.1f%% of it in gradient all-reduce\n",
			name, comm.Size(), steps, 1e3*stepTime.Seconds()/float64(max(steps, 1)), share)
		fmt.Printf("best validation accuracy: %.4f\n", bestVal)
		fmt.Printf("test accuracy: %.4f\n", testAcc)
	}
}
