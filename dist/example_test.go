package dist_test

import (
	"fmt"
	"os"
	"strconv"

	"github.com/gnnrepl/gnnrepl/checkpoint"
	"github.com/gnnrepl/gnnrepl/dist"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// A script written for N ranks: under `mpirun -np N gnnrepl run` World is
// MPI's communicator; in one process it has size 1 and the sum is the
// rank's own value.
func Example() {
	comm := dist.World()
	x := tensor.FromFloat32([]float32{1, 2}, 2)
	if err := comm.AllReduce(x, "sum"); err != nil {
		panic(err)
	}
	fmt.Println(comm.Size(), x.Float32s())
	// Output: 1 [1 2]
}

// A sharded embedding table trained with a sparse optimizer; under mpirun
// each rank holds its share of the rows, here the single process holds
// them all.
func ExampleNewDistEmbedding() {
	emb, err := dist.NewDistEmbedding(100, 4, "node_emb", nil, dist.EmbeddingOptions{Init: "zeros"})
	if err != nil {
		panic(err)
	}
	opt, err := dist.NewSparseAdagrad([]*dist.DistEmbedding{emb}, dist.SparseOptions{LR: 0.1})
	if err != nil {
		panic(err)
	}
	out, err := emb.Forward(tensor.FromInt64([]int64{7, 7, 42}, 3)) // (3, 4)
	if err != nil {
		panic(err)
	}
	tensor.Sum(out).Backward() // each looked-up row gets gradient 1
	if err := opt.Step(); err != nil {
		panic(err)
	}
	rows, _ := emb.Pull([]int64{7, 42, 0})
	fmt.Println(opt.UpdatedRows(), rows.Float32s()[:1], rows.Float32s()[4:5], rows.Float32s()[8:9])
	// Output: 2 [-0.1] [-0.1] [0]
}

// Distributed minibatches on a partitioned graph (one part here; under
// `mpirun -np 2` partition into 2 and each rank opens its own).
func ExampleNewDistNodeDataLoader() {
	g, _ := graph.New(6, []int64{0, 1, 2, 3, 4, 5}, []int64{1, 2, 3, 4, 5, 0}) // a ring
	dir, _ := os.MkdirTemp("", "dist-example-")
	defer os.RemoveAll(dir)
	_, cfg, err := dist.PartitionGraph(g, "ring", dir, dist.PartitionOptions{NumParts: 1, PartMethod: "random"})
	if err != nil {
		panic(err)
	}
	dg, err := dist.OpenDistGraph(cfg, nil)
	if err != nil {
		panic(err)
	}
	defer dg.Close()
	loader, err := dist.NewDistNodeDataLoader(dg, tensor.FromInt64([]int64{0, 3}, 2),
		sampling.NeighborSampler{Fanouts: []int{1, 1}}, sampling.LoaderOptions{BatchSize: 2})
	if err != nil {
		panic(err)
	}
	for loader.Next() {
		b := loader.Blocks()
		fmt.Println(b[0].SrcNodeIDs(), b[1].SrcNodeIDs())
	}
	// Output: [0 3 5 2 4 1] [0 3 5 2]
}

// Launch a training script on 2 ranks from a notebook cell: each rank's
// lines stream into the cell as "[rank R] ...", and rank 0's last line
// "name: value" comes back.
func ExampleLaunch() {
	res, err := dist.Launch(2, "examples/ddp_cora.go", dist.LaunchOptions{})
	if err != nil {
		fmt.Println(err) // names the failing rank and its last lines
		return
	}
	fmt.Println(res.Metric, res.Value, res.LogDir)
}

// Per-epoch checkpoints of data-parallel training: rank 0 writes the file
// (atomically), every rank resumes from it, so a job restarted after a
// failed rank ends as one that never stopped. Here one process; the same
// code runs under `mpirun -np N` (examples/ddp_sage.go is the whole
// recipe).
func ExampleComm_SaveCheckpoint() {
	comm := dist.World()
	dir, _ := os.MkdirTemp("", "dist-ckpt-")
	defer os.RemoveAll(dir)
	path := dir + "/train.safetensors"
	run := func(epochs int) float32 {
		model := nn.NewLinear(4, 2, true, tensor.NewGenerator(1))
		ddp, _ := dist.DataParallel(model, comm)
		opt := optim.NewAdam(ddp.Parameters(), optim.AdamOptions{LR: 0.1})
		st := checkpoint.State{Model: model, Optimizer: opt}
		start := 0
		if ok, err := comm.LoadCheckpoint(path, &st); err != nil {
			panic(err)
		} else if ok {
			start, _ = strconv.Atoi(st.Meta["epoch"])
		}
		x := tensor.Ones(3, 4)
		for epoch := start; epoch < epochs; epoch++ {
			loss := tensor.Sum(model.Forward(x))
			opt.ZeroGrad()
			loss.Backward()
			ddp.SyncGradients()
			opt.Step()
			st.Meta = map[string]string{"epoch": strconv.Itoa(epoch + 1)}
			if err := comm.SaveCheckpoint(path, st); err != nil {
				panic(err)
			}
		}
		return model.Parameters()[0].Float32s()[0]
	}
	run(2)            // a job that stopped after epoch 2
	resumed := run(5) // the restarted job: epochs 3 to 5
	os.Remove(path)
	fresh := run(5) // an uninterrupted job
	fmt.Println(resumed == fresh)
	// Output: true
}
