package datasets

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/workers"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// SyntheticMAGOptions describes a deterministic heterograph with the shape
// of ogbn-mag (Hu et al., "Open Graph Benchmark", NeurIPS 2020; Wang et
// al., "Microsoft Academic Graph", 2020) for benchmarks of heterogeneous
// sampling and R-GCN training. Zero values take ogbn-mag's numbers.
type SyntheticMAGOptions struct {
	// Scale multiplies every node and edge count (1, or 0, for ogbn-mag's
	// size: 1,939,743 nodes and 21,111,007 edges before reverses; tests
	// use e.g. 0.001). Each node type keeps at least one node.
	Scale float64
	// NumFeatures is the size of the paper features (128).
	NumFeatures int
	// NumClasses is the number of paper classes (venues; 349).
	NumClasses int
	// Homophily is the fraction of edges whose endpoints share a class
	// (papers' label, other nodes' home class); 0.7 when 0.
	Homophily float64
	// Noise is the standard deviation of the paper features' noise around
	// their class centroid (1.5 when 0; larger makes the features alone
	// less informative).
	Noise float64
	// NoReverse leaves out the reverse relations rev_writes, rev_has_topic
	// and rev_affiliated_with (cites is never reversed, as in DGL's and
	// GraphBolt's ogbn-mag R-GCN examples).
	NoReverse bool
	Seed      uint64
}

// ogbn-mag's node and edge counts.
const (
	magPapers       = 736_389
	magAuthors      = 1_134_649
	magInstitutions = 8_740
	magFields       = 59_965
	magWrites       = 7_145_660
	magCites        = 5_416_271
	magHasTopic     = 7_505_078
	magAffiliated   = 1_043_998
)

// SyntheticMAG builds the graph o describes, paper classification as in
// ogbn-mag, as a HeteroDataset: node types author, field_of_study,
// institution and paper; canonical edge types (author, affiliated_with,
// institution), (author, writes, paper), (paper, cites, paper), (paper,
// has_topic, field_of_study) and, unless NoReverse, (institution,
// rev_affiliated_with, author), (paper, rev_writes, author) and
// (field_of_study, rev_has_topic, paper). Papers have node data "feat"
// (N_paper, NumFeatures) float32, "label" int64, "train_mask", "val_mask"
// and "test_mask" (bool), the split about ogbn-mag's fractions (85.5%,
// 8.8%, 5.7%); the other types are featureless, as in ogbn-mag. The model: every paper has a
// class (uniform), every author, field and institution a home class (its
// id's hash); features are the paper's class centroid (N(0, 1) per class)
// plus N(0, Noise^2) noise. Each edge's endpoints are drawn with power-law
// popularity (a node of rank r among n is drawn with density ~
// r^(1/skew - 1) under a fixed id permutation), and with probability
// Homophily the second endpoint is drawn among the nodes of the first's
// class. Edges are made in fixed chunks, each from its own random stream
// keyed by (Seed, relation, chunk), on GOMAXPROCS goroutines: the graph is
// the same on every machine. Errors wrap ErrArgument and name a negative
// or non-finite Scale, sizes below 1 or a Homophily outside [0, 1].
func SyntheticMAG(o SyntheticMAGOptions) (*HeteroDataset, error) {
	const op = "datasets.SyntheticMAG"
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.NumFeatures == 0 {
		o.NumFeatures = 128
	}
	if o.NumClasses == 0 {
		o.NumClasses = 349
	}
	if o.Homophily == 0 {
		o.Homophily = 0.7
	}
	if o.Noise == 0 {
		o.Noise = 1.5
	}
	switch {
	case !(o.Scale > 0) || math.IsInf(o.Scale, 1):
		return nil, fmt.Errorf("%s: Scale must be a positive number (1 for ogbn-mag's size), got %g: %w", op, o.Scale, ErrArgument)
	case o.NumFeatures < 1 || o.NumClasses < 1:
		return nil, fmt.Errorf("%s: NumFeatures (%d) and NumClasses (%d) must be positive: %w", op, o.NumFeatures, o.NumClasses, ErrArgument)
	case !(o.Noise > 0) || math.IsInf(o.Noise, 1):
		return nil, fmt.Errorf("%s: Noise %g must be a positive number: %w", op, o.Noise, ErrArgument)
	case !(o.Homophily >= 0 && o.Homophily <= 1):
		return nil, fmt.Errorf("%s: Homophily %g is outside [0, 1]: %w", op, o.Homophily, ErrArgument)
	}
	sc := func(n int) int { return max(1, int(math.Round(float64(n)*o.Scale))) }
	nP, nA, nI, nF := sc(magPapers), sc(magAuthors), sc(magInstitutions), sc(magFields)
	c := o.NumClasses
	label := make([]int64, nP)
	for v := range label {
		label[v] = int64(magMix(o.Seed, 1, uint64(v)) % uint64(c))
	}
	papersOf := make([][]int64, c)
	for v, l := range label {
		papersOf[l] = append(papersOf[l], int64(v))
	}
	home := func(kind, v uint64) int64 { return int64(magMix(o.Seed, kind, v) % uint64(c)) }
	// nodesOf groups the nodes of a featureless type by home class.
	nodesOf := func(kind uint64, n int) [][]int64 {
		out := make([][]int64, c)
		for v := 0; v < n; v++ {
			h := home(kind, uint64(v))
			out[h] = append(out[h], int64(v))
		}
		return out
	}
	fieldsOf := nodesOf(3, nF)
	popP, popA, popI, popF := newMagPopular(nP, o.Seed^11), newMagPopular(nA, o.Seed^12), newMagPopular(nI, o.Seed^13), newMagPopular(nF, o.Seed^14)
	h := o.Homophily
	// pickIn draws from group (a class's members, in id order) with
	// popularity skew towards its first members.
	pickIn := func(r *rand.Rand, group []int64, skew float64) int64 {
		return group[min(int(float64(len(group))*math.Pow(r.Float64(), skew)), len(group)-1)]
	}
	type relGen struct {
		ce   graph.CanonicalEType
		m    int
		edge func(r *rand.Rand) (int64, int64)
	}
	gens := []relGen{
		{graph.CanonicalEType{Src: "author", EType: "writes", Dst: "paper"}, sc(magWrites), func(r *rand.Rand) (int64, int64) {
			a := popA.draw(r, 2)
			if g := papersOf[home(2, uint64(a))]; r.Float64() < h && len(g) > 0 {
				return a, pickIn(r, g, 1.5)
			}
			return a, popP.draw(r, 1.5)
		}},
		{graph.CanonicalEType{Src: "paper", EType: "cites", Dst: "paper"}, sc(magCites), func(r *rand.Rand) (int64, int64) {
			d := popP.draw(r, 1.5)
			if g := papersOf[label[d]]; r.Float64() < h && len(g) > 0 {
				return pickIn(r, g, 2.5), d
			}
			return popP.draw(r, 2.5), d
		}},
		{graph.CanonicalEType{Src: "paper", EType: "has_topic", Dst: "field_of_study"}, sc(magHasTopic), func(r *rand.Rand) (int64, int64) {
			p := int64(r.IntN(nP))
			if g := fieldsOf[label[p]]; r.Float64() < h && len(g) > 0 {
				return p, pickIn(r, g, 3)
			}
			return p, popF.draw(r, 3)
		}},
		{graph.CanonicalEType{Src: "author", EType: "affiliated_with", Dst: "institution"}, sc(magAffiliated), func(r *rand.Rand) (int64, int64) {
			return int64(r.IntN(nA)), popI.draw(r, 3)
		}},
	}
	edges := map[graph.CanonicalEType]graph.EdgeList{}
	for k, gen := range gens {
		src, dst := make([]int64, gen.m), make([]int64, gen.m)
		const chunk = 1 << 16
		nc := (gen.m + chunk - 1) / chunk
		var next atomic.Int64
		var wg workers.Group
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Go(func() {
				var pcg rand.PCG
				r := rand.New(&pcg)
				for {
					ci := int(next.Add(1) - 1)
					if ci >= nc || runctx.Err() != nil {
						return
					}
					pcg.Seed(o.Seed, magMix(o.Seed, 100+uint64(k), uint64(ci)))
					for e := ci * chunk; e < min((ci+1)*chunk, gen.m); e++ {
						src[e], dst[e] = gen.edge(r)
					}
				}
			})
		}
		wg.Wait()
		if err := runctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err) // interrupted: nothing is returned
		}
		edges[gen.ce] = graph.EdgeList{Src: src, Dst: dst}
		if !o.NoReverse && gen.ce.EType != "cites" {
			edges[graph.CanonicalEType{Src: gen.ce.Dst, EType: "rev_" + gen.ce.EType, Dst: gen.ce.Src}] = graph.EdgeList{Src: dst, Dst: src}
		}
	}
	g, err := graph.NewHetero(map[string]int{"paper": nP, "author": nA, "institution": nI, "field_of_study": nF}, edges)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err) // a bug: consistent by construction
	}
	// Features: class centroid plus noise, per paper from its own stream.
	f := o.NumFeatures
	cent := make([]float32, c*f)
	cr := rand.New(rand.NewPCG(o.Seed, 0xce47))
	for i := range cent {
		cent[i] = float32(cr.NormFloat64())
	}
	feat := make([]float32, nP*f)
	forNodes(nP, func(lo, hi int, st *nodeRand) {
		for v := lo; v < hi; v++ {
			st.seed(o.Seed^0xfea7, v)
			row, cc := feat[v*f:(v+1)*f], cent[int(label[v])*f:]
			for j := range row {
				row[j] = cc[j] + float32(o.Noise*st.NormFloat64())
			}
		}
	})
	var idx [3][]int64
	masks := [3][]bool{make([]bool, nP), make([]bool, nP), make([]bool, nP)}
	for v := 0; v < nP; v++ {
		u := float64(magMix(o.Seed, 4, uint64(v))>>11) / (1 << 53)
		s := 2
		switch {
		case u < 0.855:
			s = 0
		case u < 0.855+0.088:
			s = 1
		}
		idx[s] = append(idx[s], int64(v))
		masks[s][v] = true
	}
	labels := tensor.FromInt64(label)
	for _, kv := range []struct {
		k string
		t *tensor.Tensor
	}{
		{"feat", tensor.FromFloat32(feat, nP, f)}, {"label", labels},
		{"train_mask", tensor.FromBool(masks[0])}, {"val_mask", tensor.FromBool(masks[1])}, {"test_mask", tensor.FromBool(masks[2])},
	} {
		if err := g.SetNDataOf("paper", kv.k, kv.t); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	return &HeteroDataset{Name: fmt.Sprintf("synthetic-mag(scale=%g)", o.Scale), Graph: g, PredictCategory: "paper",
		NumClasses: c, Labels: labels, TrainIdx: tensor.FromInt64(idx[0]), ValIdx: tensor.FromInt64(idx[1]), TestIdx: tensor.FromInt64(idx[2])}, nil
}

// magMix hashes (seed, kind, v) to 64 bits (splitmix64's finaliser).
func magMix(seed, kind, v uint64) uint64 {
	z := seed ^ (kind+1)*0x9e3779b97f4a7c15 ^ (v+0x632be59bd9b4e019)*0xbf58476d1ce4e5b9
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// magPopular draws node ids with power-law popularity: rank floor(n * u^skew)
// mapped to an id by a fixed bijection of [0, n) (multiplication by a
// number coprime with n, plus an offset).
type magPopular struct{ n, a, b uint64 }

func newMagPopular(n int, seed uint64) magPopular {
	p := magPopular{n: uint64(n), b: magMix(seed, 5, 0) % uint64(n)}
	a := magMix(seed, 6, 0)%uint64(n) | 1
	for magGCD(a, p.n) != 1 {
		a++
	}
	p.a = a
	return p
}

func (p magPopular) draw(r *rand.Rand, skew float64) int64 {
	rank := min(uint64(float64(p.n)*math.Pow(r.Float64(), skew)), p.n-1)
	hi, lo := bits.Mul64(rank, p.a)
	_, rem := bits.Div64(hi, lo, p.n) // hi < n since rank, a < n
	return int64((rem + p.b) % p.n)
}

func magGCD(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
