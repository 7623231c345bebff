package datasets

import (
	"fmt"
	"math/rand/v2"
)

// SyntheticOptions describes a deterministic synthetic node-classification
// graph: a stochastic block model with one block per class, where a fraction
// Homophily of each node's edges stay inside its class, and sparse binary
// features whose active words depend on the class (so models can learn).
type SyntheticOptions struct {
	NumNodes    int
	NumEdges    int // directed edges, stored in both directions (NumEdges/2 pairs)
	NumFeatures int
	NumClasses  int
	Homophily   float64 // fraction of intra-class edges, e.g. 0.8
	WordsPerRow int     // active features per node, e.g. 18
	NumTrain    int     // per class
	NumVal      int
	NumTest     int
	Seed        uint64
}

// SyntheticLike returns options with the shape of a Planetoid dataset
// ("cora", "citeseer" or "pubmed"): its node, edge, feature and class counts
// and its split sizes.
func SyntheticLike(name string, seed uint64) (SyntheticOptions, error) {
	o := SyntheticOptions{Homophily: 0.8, WordsPerRow: 18, NumVal: 500, NumTest: 1000, Seed: seed}
	switch name {
	case "cora":
		o.NumNodes, o.NumEdges, o.NumFeatures, o.NumClasses, o.NumTrain = 2708, 10556, 1433, 7, 20
	case "citeseer":
		o.NumNodes, o.NumEdges, o.NumFeatures, o.NumClasses, o.NumTrain = 3327, 9228, 3703, 6, 20
	case "pubmed":
		o.NumNodes, o.NumEdges, o.NumFeatures, o.NumClasses, o.NumTrain = 19717, 88651, 500, 3, 20
	default:
		return o, fmt.Errorf("datasets.SyntheticLike: unknown dataset %q (want cora, citeseer or pubmed): %w", name, ErrArgument)
	}
	return o, nil
}

// Synthetic builds the graph described by o. The same options give the same
// graph on every machine. Features are row-normalised.
func Synthetic(o SyntheticOptions) (*Dataset, error) {
	if o.NumNodes <= 0 || o.NumClasses <= 0 || o.NumFeatures <= 0 || o.NumEdges < 0 {
		return nil, fmt.Errorf("datasets.Synthetic: NumNodes, NumClasses and NumFeatures must be positive and NumEdges non-negative, got %+v: %w", o, ErrArgument)
	}
	if o.NumTrain*o.NumClasses+o.NumVal+o.NumTest > o.NumNodes {
		return nil, fmt.Errorf("datasets.Synthetic: split sizes exceed %d nodes: %w", o.NumNodes, ErrArgument)
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	n, c := o.NumNodes, o.NumClasses
	labels := make([]int64, n)
	byClass := make([][]int64, c)
	for i := range labels {
		labels[i] = int64(r.IntN(c))
		byClass[labels[i]] = append(byClass[labels[i]], int64(i))
	}
	for k := range byClass {
		if len(byClass[k]) == 0 {
			byClass[k] = []int64{int64(k % n)}
		}
	}
	pairs := o.NumEdges / 2
	src := make([]int64, 0, 2*pairs)
	dst := make([]int64, 0, 2*pairs)
	for e := 0; e < pairs; e++ {
		u := int64(r.IntN(n))
		var v int64
		if r.Float64() < o.Homophily {
			cls := byClass[labels[u]]
			v = cls[r.IntN(len(cls))]
		} else {
			v = int64(r.IntN(n))
		}
		src, dst = append(src, u, v), append(dst, v, u)
	}
	f := o.NumFeatures
	feat := make([]float32, n*f)
	words := max(o.WordsPerRow, 1)
	band := max(f/c, 1)
	for i := 0; i < n; i++ {
		for w := 0; w < words; w++ {
			var j int
			if r.Float64() < 0.5 { // a word typical of the class
				j = (int(labels[i])*band + r.IntN(band)) % f
			} else {
				j = r.IntN(f)
			}
			feat[i*f+j] = 1
		}
	}
	RowNormalize(feat, n, f)
	perm := r.Perm(n)
	var train, val, test []int64
	seen := make([]int, c)
	used := make([]bool, n)
	for _, p := range perm {
		if l := labels[p]; seen[l] < o.NumTrain {
			seen[l]++
			train = append(train, int64(p))
			used[p] = true
		}
	}
	for _, p := range perm {
		if used[p] {
			continue
		}
		if len(val) < o.NumVal {
			val = append(val, int64(p))
		} else if len(test) < o.NumTest {
			test = append(test, int64(p))
		}
	}
	return fromRaw("synthetic", n, f, c, src, dst, feat, labels, train, val, test)
}
