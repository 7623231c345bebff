package memplan

import (
	"fmt"
	"math"

	"github.com/gnnrepl/gnnrepl/sampling"
)

// BlockSize is the size of one sampled block (a message flow graph): its
// source nodes, destination nodes and edges.
type BlockSize struct {
	NumSrcNodes, NumDstNodes, NumEdges int
}

// batchBlocks returns the block sizes of the batches the planner simulates,
// input layer first within each batch: the first DryRunBatches batches of a
// DataLoader over the Dataset (shuffled with Seed) when there is one,
// otherwise one batch sized in closed form.
func batchBlocks(c *Config) ([][]BlockSize, error) {
	if c.Dataset == nil {
		return [][]BlockSize{closedFormBlocks(c)}, nil
	}
	d := c.Dataset
	dl, err := sampling.NewDataLoader(d.Graph, d.TrainIdx, sampling.NeighborSampler{Fanouts: c.Fanouts},
		sampling.LoaderOptions{BatchSize: c.BatchSize, Shuffle: true, Seed: c.Seed})
	if err != nil {
		return nil, fmt.Errorf("memplan: dry run of the sampler: %w", err)
	}
	defer dl.Close()
	var out [][]BlockSize
	for len(out) < c.DryRunBatches {
		if !dl.Next() {
			if err := dl.Err(); err != nil {
				return nil, fmt.Errorf("memplan: dry run of the sampler: %w", err)
			}
			if !dl.Next() { // the next epoch
				break
			}
		}
		var bs []BlockSize
		for _, b := range dl.Blocks() {
			bs = append(bs, BlockSize{b.NumSrcNodes(), b.NumDstNodes(), b.NumEdges()})
		}
		out = append(out, bs)
	}
	if err := dl.Err(); err != nil {
		return nil, fmt.Errorf("memplan: dry run of the sampler: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: the Dataset has no training nodes to sample", ErrConfig)
	}
	return out, nil
}

// closedFormBlocks sizes one batch's blocks from the counts alone,
// assuming uniform degrees (NumEdges/NumNodes each) and uniformly spread
// neighbors: layer l (from the seeds towards the input) has nd destinations,
// e = nd * min(fanout, mean degree) edges, and nd plus the expected number
// of distinct new nodes among e draws from the graph as sources,
// (N - nd) (1 - exp(-e/N)). Real graphs have skewed degrees, so this is
// rough: hubs make the neighborhoods overlap more (fewer sources) and the
// many low-degree nodes give fewer edges than the mean.
func closedFormBlocks(c *Config) []BlockSize {
	n := float64(c.NumNodes)
	deg := float64(c.NumEdges) / n
	bs := make([]BlockSize, c.NumLayers)
	nd := float64(min(c.BatchSize, c.NumTrain))
	for l := c.NumLayers - 1; l >= 0; l-- {
		per := deg
		if f := c.Fanouts[l]; f > 0 {
			per = math.Min(float64(f), deg)
		}
		e := nd * per
		ns := nd + (n-nd)*(1-math.Exp(-e/n))
		bs[l] = BlockSize{NumSrcNodes: int(math.Ceil(ns)), NumDstNodes: int(nd), NumEdges: int(math.Round(e))}
		nd = math.Ceil(ns)
	}
	return bs
}
