package dist_test

import (
	"fmt"
	"os"

	"github.com/gnnrepl/gnnrepl/dist"
	"github.com/gnnrepl/gnnrepl/graph"
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
