package datasets

import (
	"fmt"
	"sort"
	"sync"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// RecDataset is a recommendation dataset: users, items and their
// interactions as a heterograph (canonical edge types (user, EType, item)
// and its reverse (item, "rev-"+EType, user), as DGL's recommender
// examples build them), with a deterministic per-user split of the
// interactions into training, validation and test pairs.
//
// Node ids are local to their type and contiguous: user u is
// UserIDs[u] in the files, item i is ItemIDs[i].
type RecDataset struct {
	Name string
	// UserType and ItemType are the node types ("user" and "artist" for
	// Last.fm, "user" and "movie" for MovieLens); EType is the interaction
	// relation ("listens", "rates").
	UserType, ItemType, EType string
	NumUsers, NumItems        int
	// Graph holds every interaction (both directions) and the dataset's
	// other relations (Last.fm's ("user", "friends", "user")), with the
	// interactions' edge data (Last.fm "weight" float32 listening counts;
	// MovieLens "rating" float32 and "timestamp" int64), edges in file
	// order.
	Graph *graph.Graph
	// TrainGraph is Graph with only the training interactions (in the
	// order of TrainPos) and the same other relations: the graph to train
	// and to propagate on; validation and test pairs are not in it.
	TrainGraph *graph.Graph
	// TrainPos, ValPos and TestPos are (M, 2) int64 (user, item) pairs of
	// local ids, in file order within each split. Every user with n
	// interactions has up to round(n*ValFrac) validation and
	// round(n*TestFrac) test pairs, drawn with Seed, and the rest (at least
	// one) in training. A pair is held out only when its item keeps a
	// training interaction (warm-start evaluation: an item never seen in
	// training cannot be ranked by collaborative filtering; on Last.fm
	// 10,679 of the 17,632 artists have a single listener), so every item
	// of ValPos and TestPos is in TrainPos.
	TrainPos, ValPos, TestPos *tensor.Tensor
	ValFrac, TestFrac         float64
	Seed                      int64
	// UserIDs and ItemIDs are the file ids of the local ids, ascending.
	UserIDs, ItemIDs []int64
	// ItemNames are the item names (artist names, movie titles) as UTF-8.
	ItemNames []string

	mu    sync.Mutex
	items map[string][][]int64 // per-user sorted items, by NegativePairs' exclude
}

func (d *RecDataset) String() string {
	return fmt.Sprintf("RecDataset(%s: %d %ss, %d %ss, %d %s pairs: train=%d val=%d test=%d; %v)", d.Name,
		d.NumUsers, d.UserType, d.NumItems, d.ItemType, d.Graph.NumEdgesOf(d.EType), d.EType,
		d.TrainPos.Size(0), d.ValPos.Size(0), d.TestPos.Size(0), d.Graph.CanonicalETypes())
}

// recSplit splits the interactions (user and item of each, in file
// order) per user, users in id order: a user with n interactions gets
// round(n*val) validation and round(n*test) test ones, taken in the order
// of a shuffle seeded by (seed, user), skipping any whose item would be
// left without a training interaction; at least one stays in training. It
// returns 0 (train), 1 (val) or 2 (test) per interaction.
func recSplit(users, items []int64, numUsers, numItems int, val, test float64, seed int64) []int8 {
	byUser := make([][]int, numUsers)
	left := make([]int, numItems) // training interactions per item
	for i, u := range users {
		byUser[u] = append(byUser[u], i)
		left[items[i]]++
	}
	out := make([]int8, len(users))
	for u, rows := range byUser {
		n := len(rows)
		nv, nt := int(float64(n)*val+0.5), int(float64(n)*test+0.5)
		for nv+nt > n-1 && nv+nt > 0 {
			if nt >= nv {
				nt--
			} else {
				nv--
			}
		}
		perm := append([]int(nil), rows...)
		s := splitmix(uint64(seed)*0x9E3779B97F4A7C15 ^ uint64(u+1))
		for i := n - 1; i > 0; i-- {
			j := int(s.next() % uint64(i+1))
			perm[i], perm[j] = perm[j], perm[i]
		}
		for _, r := range perm {
			if nt+nv == 0 {
				break
			}
			if left[items[r]] < 2 {
				continue
			}
			left[items[r]]--
			if nt > 0 {
				out[r], nt = 2, nt-1
			} else {
				out[r], nv = 1, nv-1
			}
		}
	}
	return out
}

// splitmixState is the SplitMix64 generator (Steele, Lea and Flood 2014): a
// fixed, documented sequence for the dataset splits.
type splitmixState struct{ x uint64 }

func splitmix(seed uint64) *splitmixState { return &splitmixState{seed} }

func (s *splitmixState) next() uint64 {
	s.x += 0x9E3779B97F4A7C15
	z := s.x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// recParts builds the RecDataset's graphs and split from interactions
// (local user and item ids in file order) and their edge data (one tensor
// per name, rows in interaction order); other holds extra relations put in
// both graphs.
func newRecDataset(d *RecDataset, users, items []int64, edata map[string]*tensor.Tensor, other map[graph.CanonicalEType]graph.EdgeList) (*RecDataset, error) {
	part := recSplit(users, items, d.NumUsers, d.NumItems, d.ValFrac, d.TestFrac, d.Seed)
	var pairs [3][]int64
	var trainRows []int64
	for i, p := range part {
		pairs[p] = append(pairs[p], users[i], items[i])
		if p == 0 {
			trainRows = append(trainRows, int64(i))
		}
	}
	fw := graph.CanonicalEType{Src: d.UserType, EType: d.EType, Dst: d.ItemType}
	bw := graph.CanonicalEType{Src: d.ItemType, EType: "rev-" + d.EType, Dst: d.UserType}
	build := func(u, it []int64, rows *tensor.Tensor) (*graph.Graph, error) {
		edges := map[graph.CanonicalEType]graph.EdgeList{fw: {Src: u, Dst: it}, bw: {Src: it, Dst: u}}
		for ce, el := range other {
			edges[ce] = el
		}
		g, err := graph.NewHetero(map[string]int{d.UserType: d.NumUsers, d.ItemType: d.NumItems}, edges)
		if err != nil {
			return nil, fmt.Errorf("datasets: %s: %w", d.Name, err)
		}
		names := make([]string, 0, len(edata))
		for k := range edata {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			t := edata[k]
			if rows != nil {
				t = tensor.IndexSelect(t, rows)
			}
			for _, et := range []string{d.EType, bw.EType} {
				if err := g.SetEDataOf(et, k, t); err != nil {
					return nil, fmt.Errorf("datasets: %s: %w", d.Name, err)
				}
			}
		}
		return g, nil
	}
	var err error
	if d.Graph, err = build(users, items, nil); err != nil {
		return nil, err
	}
	tu, ti := make([]int64, len(pairs[0])/2), make([]int64, len(pairs[0])/2)
	for i := range tu {
		tu[i], ti[i] = pairs[0][2*i], pairs[0][2*i+1]
	}
	if d.TrainGraph, err = build(tu, ti, tensor.FromInt64(trainRows)); err != nil {
		return nil, err
	}
	d.TrainPos = tensor.FromInt64(pairs[0], len(pairs[0])/2, 2)
	d.ValPos = tensor.FromInt64(pairs[1], len(pairs[1])/2, 2)
	d.TestPos = tensor.FromInt64(pairs[2], len(pairs[2])/2, 2)
	return d, nil
}

// UserItemGraph returns the training interactions as one homogeneous
// bipartite graph of NumUsers + NumItems nodes, users first (node u is
// user u, node NumUsers + i is item i), with every training pair in both
// directions (edges u -> item in TrainPos order, then their reverses): the
// adjacency LightGCN and NGCF propagate on (He et al., SIGIR 2020). No
// node or edge data.
func (d *RecDataset) UserItemGraph() (*graph.Graph, error) {
	p := d.TrainPos.Int64s()
	m := len(p) / 2
	src, dst := make([]int64, 2*m), make([]int64, 2*m)
	off := int64(d.NumUsers)
	for i := 0; i < m; i++ {
		u, it := p[2*i], p[2*i+1]+off
		src[i], dst[i], src[m+i], dst[m+i] = u, it, it, u
	}
	g, err := graph.New(d.NumUsers+d.NumItems, src, dst)
	if err != nil {
		return nil, fmt.Errorf("datasets.RecDataset.UserItemGraph: %w", err)
	}
	return g, nil
}

// checkPairs reads an (M, 2) int64 tensor of (user, item) pairs of local
// ids, naming the argument in errors.
func (d *RecDataset) checkPairs(op string, pairs *tensor.Tensor) ([]int64, error) {
	if d == nil {
		return nil, fmt.Errorf("%s: the dataset is nil: %w", op, ErrArgument)
	}
	if pairs == nil {
		return nil, fmt.Errorf("%s: pairs is nil: %w", op, ErrArgument)
	}
	if pairs.DType() != tensor.Int64 || pairs.Dim() != 2 || pairs.Size(1) != 2 {
		return nil, fmt.Errorf("%s: pairs must be (M, 2) int64 (user, item) ids, got %s %v: %w", op, pairs.DType(), pairs.Shape(), ErrArgument)
	}
	if pairs.Device() != "cpu" {
		var err error
		if pairs, err = pairs.To("cpu"); err != nil {
			return nil, fmt.Errorf("%s: copying pairs to the cpu: %w", op, err)
		}
	}
	p := pairs.Int64s()
	for i := 0; i < len(p)/2; i++ {
		if u, it := p[2*i], p[2*i+1]; u < 0 || u >= int64(d.NumUsers) || it < 0 || it >= int64(d.NumItems) {
			return nil, fmt.Errorf("%s: pairs row %d (%d, %d) is outside [0, %d) x [0, %d): %w", op, i, u, it, d.NumUsers, d.NumItems, ErrArgument)
		}
	}
	return p, nil
}

// PairGraph returns the graph over UserItemGraph's nodes with one edge
// u -> NumUsers + i per (user, item) row of pairs ((M, 2) int64, such as
// TestPos or the result of NegativePairs), in row order: the pair graph to
// score with nn.DotPredictor on node representations of UserItemGraph.
// Errors name the argument (nil, not (M, 2) int64, an id out of range).
func (d *RecDataset) PairGraph(pairs *tensor.Tensor) (*graph.Graph, error) {
	const op = "datasets.RecDataset.PairGraph"
	p, err := d.checkPairs(op, pairs)
	if err != nil {
		return nil, err
	}
	m := len(p) / 2
	src, dst := make([]int64, m), make([]int64, m)
	for i := 0; i < m; i++ {
		src[i], dst[i] = p[2*i], p[2*i+1]+int64(d.NumUsers)
	}
	g, err := graph.New(d.NumUsers+d.NumItems, src, dst)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return g, nil
}

// maxNegatives bounds NegativePairs' output (2^28 pairs, 4 GiB): a
// request for more is an error, not a process killed for memory.
const maxNegatives = 1 << 28

// NegativePairs returns k negative (user, item) pairs per row of pairs,
// (M*k, 2) int64 with the k negatives of row r at rows r*k..r*k+k-1: the
// row's user and an item drawn uniformly (with seed) among the items that
// user has no interaction with in exclude: "train" (the training pairs:
// negatives to train on, PerSourceUniform(k) restricted to items) or "all"
// (every split: the sampled negatives of held-out AUC). Errors name the
// argument: pairs as PairGraph, k < 1 or more than the items, more than
// maxNegatives negatives in all, another exclude, or a user with every
// item excluded.
func (d *RecDataset) NegativePairs(pairs *tensor.Tensor, k int, seed int64, exclude string) (*tensor.Tensor, error) {
	const op = "datasets.RecDataset.NegativePairs"
	p, err := d.checkPairs(op, pairs)
	if err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, fmt.Errorf("%s: k = %d; want k >= 1: %w", op, k, ErrArgument)
	}
	if k > d.NumItems {
		return nil, fmt.Errorf("%s: k = %d negatives per pair is more than the %d items: %w", op, k, d.NumItems, ErrArgument)
	}
	if n := int64(len(p)/2) * int64(k); n > maxNegatives {
		return nil, fmt.Errorf("%s: %d pairs x k = %d is %d negatives (%d bytes), more than %d: draw them for a batch of pairs at a time: %w",
			op, len(p)/2, k, n, 16*n, int64(maxNegatives), ErrArgument)
	}
	var g *graph.Graph
	switch exclude {
	case "train":
		g = d.TrainGraph
	case "all":
		g = d.Graph
	default:
		return nil, fmt.Errorf("%s: exclude = %q; want \"train\" or \"all\": %w", op, exclude, ErrArgument)
	}
	items := d.userItems(exclude, g)
	s := splitmix(uint64(seed))
	out := make([]int64, 0, len(p)*k)
	for r := 0; r < len(p)/2; r++ {
		u := p[2*r]
		if len(items[u]) >= d.NumItems {
			return nil, fmt.Errorf("%s: user %d interacted with all %d items: no negative to draw: %w", op, u, d.NumItems, ErrArgument)
		}
		for j := 0; j < k; j++ {
			for {
				it := int64(s.next() % uint64(d.NumItems))
				l := items[u]
				if j := sort.Search(len(l), func(a int) bool { return l[a] >= it }); j == len(l) || l[j] != it {
					out = append(out, u, it)
					break
				}
			}
		}
	}
	return tensor.FromInt64(out, len(out)/2, 2), nil
}

// userItems returns the sorted items of every user in g's interactions,
// cached per exclude.
func (d *RecDataset) userItems(key string, g *graph.Graph) [][]int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.items == nil {
		d.items = map[string][][]int64{}
	}
	if l, ok := d.items[key]; ok {
		return l
	}
	l := make([][]int64, d.NumUsers)
	src, dst := g.EdgesOf(d.EType)
	ds := dst.Int64s()
	for e, u := range src.Int64s() {
		l[u] = append(l[u], ds[e])
	}
	for _, x := range l {
		sort.Slice(x, func(a, b int) bool { return x[a] < x[b] })
	}
	d.items[key] = l
	return l
}

// ItemPopularity returns the number of training interactions of every
// item, (NumItems) float32: the popularity baseline's scores (rank every
// user's unseen items by it).
func (d *RecDataset) ItemPopularity() *tensor.Tensor {
	c := make([]float32, d.NumItems)
	p := d.TrainPos.Int64s()
	for i := 1; i < len(p); i += 2 {
		c[p[i]]++
	}
	return tensor.FromFloat32(c, d.NumItems)
}
