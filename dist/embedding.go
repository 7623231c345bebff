package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// EmbeddingOptions configures NewDistEmbedding.
type EmbeddingOptions struct {
	// Graph, when set, shards the rows by its node partition (DGL's
	// part_policy over the nodes): row v lives on the rank that owns node
	// v, and the table has Graph.NumNodes() rows. Without it row ranges
	// are contiguous: rank r holds rows [r*N/k, (r+1)*N/k).
	Graph *DistGraph
	// Init is "uniform" (the default: U(-Scale, Scale)), "normal"
	// (N(0, Scale^2)) or "zeros"; each row is drawn from its own stream of
	// (Seed, row id), so the table's values do not depend on the sharding
	// or the number of ranks.
	Init string
	// Scale is the uniform half-width or the normal's standard deviation
	// (1 / sqrt(dim) when 0).
	Scale float64
	// Seed seeds the initialization.
	Seed int64
}

// DistEmbedding is an embedding table sharded over the ranks (DGL's
// dgl.distributed.DistEmbedding; the seed's parameter server): each rank
// holds only its rows, Forward pulls the rows of a batch from their owners
// with all-to-all(v), and a sparse optimizer (NewSparseAdam,
// NewSparseAdagrad) pushes the batch's gradient rows back to the owners,
// which apply the update. A trainer thus only ever holds the rows of its
// batch. The table is float32 on the CPU.
type DistEmbedding struct {
	name     string
	num, dim int
	comm     *Comm
	g        *DistGraph
	bounds   []int64   // contiguous policy: rank r holds [bounds[r], bounds[r+1])
	rows     []float32 // this rank's rows, (local rows, dim)
	nlocal   int
	trace    []pulled
}

// pulled is one Forward's ids and output, for the sparse optimizer.
type pulled struct {
	ids []int64
	out *tensor.Tensor
}

// NewDistEmbedding makes a table of num rows of dim float32 values sharded
// over comm's ranks (nil: World()). num must be the same on every rank
// (checked) and equal Graph.NumNodes() when opts.Graph is set. Errors:
// sizes not positive, an unknown Init, disagreeing ranks (ErrArgument,
// ErrMPI).
func NewDistEmbedding(num, dim int, name string, comm *Comm, opts EmbeddingOptions) (*DistEmbedding, error) {
	const op = "NewDistEmbedding"
	if comm == nil {
		comm = World()
	}
	if err := comm.ready(op); err != nil {
		return nil, err
	}
	if num < 1 || dim < 1 {
		return nil, comm.rankErr(ErrArgument, op, "%d rows of dim %d; both must be positive", num, dim)
	}
	if opts.Graph != nil && opts.Graph.NumNodes() != num {
		return nil, comm.rankErr(ErrArgument, op, "%d rows sharded by a graph of %d nodes; they must match", num, opts.Graph.NumNodes())
	}
	if opts.Graph != nil && opts.Graph.comm != comm {
		return nil, comm.rankErr(ErrArgument, op, "opts.Graph was opened on another communicator")
	}
	scale := opts.Scale
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(dim))
	}
	var draw func(r *rand.Rand) float64
	switch opts.Init {
	case "", "uniform":
		draw = func(r *rand.Rand) float64 { return (2*r.Float64() - 1) * scale }
	case "normal":
		draw = func(r *rand.Rand) float64 { return r.NormFloat64() * scale }
	case "zeros":
	default:
		return nil, comm.rankErr(ErrArgument, op, "Init %q; want \"uniform\", \"normal\" or \"zeros\"", opts.Init)
	}
	if err := comm.agree(op, "(rows, dim)", int64(num), int64(dim)); err != nil {
		return nil, err
	}
	e := &DistEmbedding{name: name, num: num, dim: dim, comm: comm, g: opts.Graph}
	var mine []int64 // the global ids of the local rows, in local order
	if e.g != nil {
		mine = e.g.origOf[:e.g.inner]
	} else {
		k := comm.Size()
		e.bounds = make([]int64, k+1)
		for r := 0; r <= k; r++ {
			e.bounds[r] = int64(r) * int64(num) / int64(k)
		}
		for v := e.bounds[comm.Rank()]; v < e.bounds[comm.Rank()+1]; v++ {
			mine = append(mine, v)
		}
	}
	e.nlocal = len(mine)
	e.rows = make([]float32, e.nlocal*dim)
	if draw != nil {
		for i, v := range mine {
			r := rand.New(rand.NewPCG(uint64(opts.Seed), uint64(v)))
			for j := 0; j < dim; j++ {
				e.rows[i*dim+j] = float32(draw(r))
			}
		}
	}
	return e, nil
}

// Name returns the table's name.
func (e *DistEmbedding) Name() string { return e.name }

// NumEmbeddings returns the row count of the whole table.
func (e *DistEmbedding) NumEmbeddings() int { return e.num }

// EmbeddingDim returns the row width.
func (e *DistEmbedding) EmbeddingDim() int { return e.dim }

// LocalRows returns how many rows this rank holds.
func (e *DistEmbedding) LocalRows() int { return e.nlocal }

// String is "dist.DistEmbedding{"emb", 2708 x 16, 1318 rows on rank 0 of 2}".
func (e *DistEmbedding) String() string {
	return fmt.Sprintf("dist.DistEmbedding{%q, %d x %d, %d rows on rank %d of %d}", e.name, e.num, e.dim, e.nlocal, e.comm.Rank(), e.comm.Size())
}

// owner returns the rank that holds row v.
func (e *DistEmbedding) owner(v int64) int {
	if e.g != nil {
		return int(e.g.owner[v])
	}
	return sort.Search(len(e.bounds)-1, func(r int) bool { return e.bounds[r+1] > v })
}

// local returns the local row of v on its owner (this rank).
func (e *DistEmbedding) local(v int64) int64 {
	if e.g != nil {
		return e.g.newID[v] - e.g.lo
	}
	return v - e.bounds[e.comm.Rank()]
}

// route groups ids by owner (see DistGraph.route).
func (e *DistEmbedding) route(ids []int64) (send []int64, counts []int, from []int) {
	k := e.comm.Size()
	counts = make([]int, k)
	own := make([]int, len(ids))
	for i, v := range ids {
		own[i] = e.owner(v)
		counts[own[i]]++
	}
	next := make([]int, k)
	for r := 1; r < k; r++ {
		next[r] = next[r-1] + counts[r-1]
	}
	send, from = make([]int64, len(ids)), make([]int, len(ids))
	for i, v := range ids {
		o := own[i]
		send[next[o]], from[next[o]] = v, i
		next[o]++
	}
	return send, counts, from
}

func (e *DistEmbedding) checkIDs(op string, ids []int64) error {
	for i, v := range ids {
		if v < 0 || v >= int64(e.num) {
			return e.comm.rankErr(ErrArgument, op, "%s: row id %d (position %d) outside [0, %d)", e.name, v, i, e.num)
		}
	}
	return nil
}

// Pull returns the current rows ids, in order, (len(ids), dim) float32,
// without recording them for the optimizer (a collective; DGL's
// DistTensor read).
func (e *DistEmbedding) Pull(ids []int64) (*tensor.Tensor, error) {
	const op = "DistEmbedding.Pull"
	if err := e.comm.ready(op); err != nil {
		return nil, err
	}
	if err := e.checkIDs(op, ids); err != nil {
		return nil, err
	}
	send, counts, from := e.route(ids)
	reqs, rcounts, err := e.comm.AllToAllVInt64s(send, counts)
	if err != nil {
		return nil, err
	}
	d := e.dim
	reply := make([]float32, len(reqs)*d)
	for i, v := range reqs {
		l := e.local(v)
		copy(reply[i*d:(i+1)*d], e.rows[l*int64(d):(l+1)*int64(d)])
	}
	for r := range rcounts {
		rcounts[r] *= d
	}
	got, _, err := e.comm.AllToAllVFloat32s(reply, rcounts)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(ids)*d)
	for j, i := range from {
		copy(out[i*d:(i+1)*d], got[j*d:(j+1)*d])
	}
	return tensor.FromFloat32(out, len(ids), d), nil
}

// Forward looks up the rows of ids, (B) int64 original ids -> (B, dim)
// float32, pulled from their owners (a collective: every rank calls it,
// each with its batch, possibly empty). The result is a leaf that requires
// grad; after backward its gradient is what the sparse optimizer's Step
// pushes to the owners. Errors: ids nil, not 1-D int64, or out of range.
func (e *DistEmbedding) Forward(ids *tensor.Tensor) (*tensor.Tensor, error) {
	const op = "DistEmbedding.Forward"
	if ids == nil || ids.Dim() != 1 || ids.DType() != tensor.Int64 || ids.Device() != "cpu" {
		return nil, e.comm.rankErr(ErrArgument, op, "%s: ids must be a 1-D int64 CPU tensor", e.name)
	}
	v := append([]int64(nil), ids.Int64s()...)
	out, err := e.Pull(v)
	if err != nil {
		return nil, err
	}
	out.SetRequiresGrad(true)
	e.trace = append(e.trace, pulled{ids: v, out: out})
	return out, nil
}

// Weight all-gathers the whole table in row id order, (num, dim) float32
// (a collective, for evaluation and tests; it holds every row).
func (e *DistEmbedding) Weight() (*tensor.Tensor, error) {
	ids := make([]int64, 0)
	if e.comm.Rank() == 0 {
		ids = make([]int64, e.num)
		for i := range ids {
			ids[i] = int64(i)
		}
	}
	t, err := e.Pull(ids)
	if err != nil {
		return nil, err
	}
	if e.comm.Rank() != 0 {
		t = tensor.New(tensor.Float32, e.num, e.dim)
	}
	if err := e.comm.Broadcast(t, 0); err != nil {
		return nil, err
	}
	return t, nil
}
