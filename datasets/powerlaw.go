package datasets

import (
	"fmt"
	"github.com/gnnrepl/gnnrepl/internal/workers"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// PowerLawOptions describes a deterministic synthetic node-classification
// graph with power-law degrees and communities, at any scale (see
// ProductsLike for ogbn-products' shape). The model:
//
//   - Node ids are a fixed random permutation of ranks 0..NumNodes-1; rank
//     r belongs to community (class) r*NumClasses/NumNodes, so classes have
//     equal sizes and their members are spread over the id range.
//   - Node v's in-degree is drawn from a Pareto law with tail exponent
//     DegreeExponent (P(deg > x) ~ x^-(DegreeExponent-1)), then all degrees
//     are scaled so that they sum to exactly NumEdges (capped at MaxDegree
//     first, the shortfall spread evenly over all nodes).
//   - Each in-edge's source is, with probability Homophily, a node of v's
//     own class, otherwise any node; within the chosen range the source's
//     rank is floor(size * x^Skew) for x uniform in [0, 1), so low ranks
//     are hubs (out-degree density ~ rank^(1/Skew - 1)).
//   - Features are the class centroid (a fixed N(0, 1) vector per class)
//     plus N(0, Noise^2) noise per entry, float32 (NumNodes, NumFeatures).
//   - Each node is in train, validation or test by a hash of (Seed, v):
//     TrainFrac, ValFrac, and the rest.
//
// Every node's edges and features come from a random stream keyed by (Seed,
// v), so the result is the same on every machine and for any GOMAXPROCS.
type PowerLawOptions struct {
	NumNodes       int
	NumEdges       int
	NumFeatures    int
	NumClasses     int
	Homophily      float64 // fraction of in-edges from the node's class, e.g. 0.8
	DegreeExponent float64 // Pareto tail exponent of in-degrees, > 1; e.g. 2.1
	MaxDegree      int     // in-degree cap after scaling (0: none), e.g. 20000
	Skew           float64 // source popularity skew, >= 1; e.g. 3
	Noise          float64 // feature noise standard deviation, e.g. 2
	TrainFrac      float64
	ValFrac        float64
	Seed           uint64
}

// ProductsLike returns options with the shape of ogbn-products (Hu et al.,
// "Open Graph Benchmark", 2020): 2,449,029 nodes, 61,859,140 directed edges,
// 100 features, 47 classes, and its split fractions (8% train, 1.6%
// validation, the rest test). Scale multiplies the node and edge counts
// (1 for full size; tests use e.g. 0.001); it panics with ErrArgument
// naming scale unless scale is positive and finite.
func ProductsLike(scale float64, seed uint64) PowerLawOptions {
	if !(scale > 0) || math.IsInf(scale, 1) {
		panic(fmt.Errorf("datasets.ProductsLike: scale must be a positive number (1 for ogbn-products' size), got %g: %w", scale, ErrArgument))
	}
	return PowerLawOptions{
		NumNodes:    max(int(2_449_029*scale), 47),
		NumEdges:    int(61_859_140 * scale),
		NumFeatures: 100, NumClasses: 47,
		Homophily: 0.8, DegreeExponent: 2.3, MaxDegree: 20_000, Skew: 3, Noise: 2,
		TrainFrac: 196_615.0 / 2_449_029, ValFrac: 39_323.0 / 2_449_029,
		Seed: seed,
	}
}

// PowerLaw builds the dataset described by o (see PowerLawOptions) with the
// graph's in-edge adjacency built directly (graph.NewFromCSC; edge ids are
// CSC positions), ndata "feat" (N, F) float32, "label" (N) int64 and
// "train_mask" / "val_mask" / "test_mask" (N) bool. Memory: about 16 bytes
// per edge (CSC indices and the COO destinations) plus 4*F+20 bytes per
// node; products scale (ProductsLike(1, seed)) peaks at 2.0 GiB resident and
// takes 20–45 s on two shared cores (BenchmarkPowerLawProducts).
//
// It returns an error wrapping ErrArgument naming the first invalid option.
func PowerLaw(o PowerLawOptions) (*Dataset, error) {
	const op = "datasets.PowerLaw"
	switch {
	case o.NumNodes <= 0:
		return nil, fmt.Errorf("%s: NumNodes must be positive, got %d: %w", op, o.NumNodes, ErrArgument)
	case o.NumClasses <= 0:
		return nil, fmt.Errorf("%s: NumClasses must be positive, got %d: %w", op, o.NumClasses, ErrArgument)
	case o.NumFeatures <= 0:
		return nil, fmt.Errorf("%s: NumFeatures must be positive, got %d: %w", op, o.NumFeatures, ErrArgument)
	case o.NumEdges < 0:
		return nil, fmt.Errorf("%s: NumEdges must be non-negative, got %d: %w", op, o.NumEdges, ErrArgument)
	case o.NumClasses > o.NumNodes:
		return nil, fmt.Errorf("%s: %d classes for %d nodes: %w", op, o.NumClasses, o.NumNodes, ErrArgument)
	case o.Homophily < 0 || o.Homophily > 1:
		return nil, fmt.Errorf("%s: Homophily %g outside [0, 1]: %w", op, o.Homophily, ErrArgument)
	case o.DegreeExponent <= 1:
		return nil, fmt.Errorf("%s: DegreeExponent %g must exceed 1: %w", op, o.DegreeExponent, ErrArgument)
	case o.Skew < 1:
		return nil, fmt.Errorf("%s: Skew %g must be at least 1: %w", op, o.Skew, ErrArgument)
	case o.TrainFrac < 0 || o.ValFrac < 0 || o.TrainFrac+o.ValFrac > 1:
		return nil, fmt.Errorf("%s: TrainFrac %g and ValFrac %g must be >= 0 and sum to at most 1: %w", op, o.TrainFrac, o.ValFrac, ErrArgument)
	}
	n, c, f := o.NumNodes, o.NumClasses, o.NumFeatures
	// rankOf[v] and idOf[rank]: a fixed permutation.
	perm := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15)).Perm(n)
	idOf := make([]int64, n)
	rankOf := make([]int32, n)
	for r, v := range perm {
		idOf[r] = int64(v)
		rankOf[v] = int32(r)
	}
	perm = nil
	class := func(rank int64) int64 { return rank * int64(c) / int64(n) }
	classStart := func(k int64) int64 { return (k*int64(n) + int64(c) - 1) / int64(c) } // first rank of class k

	// Pass 1: raw Pareto degrees, scaled to sum to NumEdges exactly.
	indptr := make([]int64, n+1)
	raw := make([]float64, n)
	forNodes(n, func(lo, hi int, st *nodeRand) {
		for v := lo; v < hi; v++ {
			st.seed(o.Seed, v)
			raw[v] = math.Pow(1-st.Float64(), -1/(o.DegreeExponent-1)) // >= 1
		}
	})
	var sum float64
	for _, x := range raw {
		sum += x
	}
	var got int64
	for v, x := range raw {
		d := int64(x * float64(o.NumEdges) / sum)
		if o.MaxDegree > 0 {
			d = min(d, int64(o.MaxDegree))
		}
		indptr[v+1] = d
		got += d
	}
	// Hand out the rounding remainder one edge each, spread over the ids.
	rem := int64(o.NumEdges) - got
	if base := rem / int64(n); base > 0 {
		for v := 1; v <= n; v++ {
			indptr[v] += base
		}
		rem -= base * int64(n)
	}
	for i := int64(0); i < rem; i++ {
		indptr[1+(i*int64(n)/max(rem, 1))%int64(n)]++
	}
	raw = nil
	for v := 0; v < n; v++ {
		indptr[v+1] += indptr[v]
	}

	// Pass 2: sources, features and split, node by node.
	indices := make([]int64, o.NumEdges)
	feat := make([]float32, n*f)
	labels := make([]int64, n)
	split := make([]uint8, n) // 0 train, 1 val, 2 test
	centroids := make([]float64, c*f)
	cr := rand.New(rand.NewPCG(o.Seed, 0xc3a5c85c97cb3127))
	for i := range centroids {
		centroids[i] = cr.NormFloat64()
	}
	forNodes(n, func(lo, hi int, st *nodeRand) {
		for v := lo; v < hi; v++ {
			st.seed(o.Seed, v)
			st.Float64() // the degree draw of pass 1
			k := class(int64(rankOf[v]))
			labels[v] = k
			k0, k1 := classStart(k), classStart(k+1)
			for p := indptr[v]; p < indptr[v+1]; p++ {
				lo, size := int64(0), int64(n)
				if st.Float64() < o.Homophily {
					lo, size = k0, k1-k0
				}
				r := lo + min(int64(float64(size)*math.Pow(st.Float64(), o.Skew)), size-1)
				indices[p] = idOf[r]
			}
			row, cen := feat[v*f:(v+1)*f], centroids[k*int64(f):(k+1)*int64(f)]
			for j := range row {
				row[j] = float32(cen[j] + o.Noise*st.NormFloat64())
			}
			switch u := st.Float64(); {
			case u < o.TrainFrac:
				split[v] = 0
			case u < o.TrainFrac+o.ValFrac:
				split[v] = 1
			default:
				split[v] = 2
			}
		}
	})
	idOf, rankOf = nil, nil
	g, err := graph.NewFromCSC(n, indptr, indices, nil, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err) // a bug: consistent by construction
	}
	return syntheticDataset(op, "powerlaw", g, feat, labels, split, f, c)
}

// nodeRand is a per-goroutine generator re-seeded for each node, so that a
// node's draws depend only on (seed, node).
type nodeRand struct {
	pcg rand.PCG
	*rand.Rand
}

func (s *nodeRand) seed(seed uint64, v int) { s.pcg.Seed(seed, uint64(v)*0x9e3779b97f4a7c15+1) }

// forNodes runs body over contiguous ranges of [0, n) on GOMAXPROCS
// goroutines, each with its own nodeRand.
func forNodes(n int, body func(lo, hi int, st *nodeRand)) {
	nw := max(1, min(runtime.GOMAXPROCS(0), n/1024))
	var wg workers.Group
	chunk := (n + nw - 1) / nw
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Go(func() {
			st := &nodeRand{}
			st.Rand = rand.New(&st.pcg)
			body(lo, hi, st)
		})
	}
	wg.Wait()
}

// syntheticDataset attaches a generated graph's node data (feat (N, F)
// float32, label, and train / val / test masks from split: 0, 1 or 2 per
// node) and returns it as a Dataset named name.
func syntheticDataset(op, name string, g *graph.Graph, feat []float32, labels []int64, split []uint8, f, c int) (*Dataset, error) {
	n := g.NumNodes()
	var idx [3][]int64
	masks := [3][]bool{make([]bool, n), make([]bool, n), make([]bool, n)}
	for v, s := range split {
		idx[s] = append(idx[s], int64(v))
		masks[s][v] = true
	}
	for _, kv := range []struct {
		k string
		t *tensor.Tensor
	}{
		{"feat", tensor.FromFloat32(feat, n, f)}, {"label", tensor.FromInt64(labels)},
		{"train_mask", tensor.FromBool(masks[0])}, {"val_mask", tensor.FromBool(masks[1])},
		{"test_mask", tensor.FromBool(masks[2])},
	} {
		if err := g.SetNData(kv.k, kv.t); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	return &Dataset{Name: name, Graph: g, NumClasses: c, NumFeatures: f,
		TrainIdx: tensor.FromInt64(idx[0]), ValIdx: tensor.FromInt64(idx[1]), TestIdx: tensor.FromInt64(idx[2])}, nil
}
