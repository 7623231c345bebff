package sampling

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// HeteroSampler turns seed nodes of one or more node types of a
// heterograph into the heterogeneous blocks of a multi-layer GNN (DGL's
// BlockSampler.sample_blocks on a heterograph with seeds {ntype: ids}).
// NeighborSampler (one fanout per layer for every edge type) and
// HeteroNeighborSampler (a fanout per layer and edge type) are
// HeteroSamplers.
type HeteroSampler interface {
	// SampleHeteroBlocks returns one block per layer for seeds (node type
	// -> ids of that type): blocks[0] is the input layer, and the
	// destination nodes of the last block are the seeds, per node type, in
	// order. The sample is a function of (g, epochSeed) and each node's
	// type and id only.
	SampleHeteroBlocks(g *graph.Graph, seeds map[string][]int64, epochSeed uint64) ([]*graph.HeteroBlock, error)
}

var (
	_ HeteroSampler = NeighborSampler{}
	_ HeteroSampler = HeteroNeighborSampler{}
)

// HeteroNeighborSampler samples a number of neighbours per node, layer and
// edge type of a heterograph, as DGL's
// dgl.dataloading.NeighborSampler([{etype: k, ...}, ...], edge_dir, prob,
// replace) (Schlichtkrull et al., "Modeling Relational Data with Graph
// Convolutional Networks", ESWC 2018, for the R-GCN minibatch training it
// serves).
//
// Fanouts lists, per layer and input layer first, a map from edge type to
// the number of in-neighbours to sample through edges of that type (-1:
// all of them, 0: none). A key is an edge type name that one canonical edge
// type has, its canonical String form ("src", "etype", "dst"), or
// "src:etype:dst"; the key "*" gives the fanout of every edge type the map
// does not name. Every edge type of the graph must get a fanout in every
// layer: a map missing one (without "*") is an error naming it. For the same
// fanout on every edge type use NeighborSampler{Fanouts: []int{...}}, whose
// SampleHeteroBlocks does that.
//
// EdgeDir must be "in" (or empty): a destination node of type d draws its
// neighbours of type s through the in-edges of each relation (s, etype, d).
// Sample out-edges by adding reverse edge types to the graph instead.
//
// Prob names float32 edge data, (E) or (E, 1) per edge type, holding
// non-negative sampling weights; every edge type sampled with a fanout
// other than 0 must have it. Replace samples with replacement. Both behave
// per relation as in NeighborSampler.
//
// The neighbours of node v of relation r (its index in
// g.CanonicalETypes()) in layer i are drawn from a random stream keyed by
// (epochSeed, i, r, v), with the picking code of NeighborSampler: on a graph
// with one node type and one edge type the blocks equal NeighborSampler's
// with the same fanouts.
type HeteroNeighborSampler struct {
	Fanouts []map[string]int
	EdgeDir string
	Prob    string
	Replace bool
}

// NumLayers returns len(s.Fanouts).
func (s HeteroNeighborSampler) NumLayers() int { return len(s.Fanouts) }

// String renders the sampler as DGL users write it.
func (s HeteroNeighborSampler) String() string {
	layers := make([]string, len(s.Fanouts))
	for i, m := range s.Fanouts {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for j, k := range keys {
			parts[j] = fmt.Sprintf("%q: %d", k, m[k])
		}
		layers[i] = "{" + strings.Join(parts, ", ") + "}"
	}
	dir := s.EdgeDir
	if dir == "" {
		dir = "in"
	}
	return fmt.Sprintf("HeteroNeighborSampler(fanouts=[%s], edge_dir=%q, prob=%q, replace=%v)", strings.Join(layers, ", "), dir, s.Prob, s.Replace)
}

// heteroPrepared is a checked hetero sampler bound to a graph.
type heteroPrepared struct {
	ntypes  []string
	ces     []graph.CanonicalEType
	si, di  []int         // per relation: source and destination type index
	adjs    []*tensor.Adj // per relation: in-adjacency
	owners  [][]int64     // per relation: the destination id of each edge
	weights [][]float32   // per relation, or nil
	fans    [][]int       // [layer][relation]
	numN    []int         // node count per type
	offsets []int         // marker offset per type
	total   int           // sum of numN
	prob    string        // edge data name of weights
	replace bool
}

// prepareHetero checks the options common to both hetero samplers; fans
// gives the fanouts [layer][relation] (already resolved).
func prepareHetero(name string, g *graph.Graph, fans [][]int, edgeDir, prob string, replace bool) (*heteroPrepared, error) {
	switch edgeDir {
	case "", "in":
	case "out":
		return nil, fmt.Errorf("%s: EdgeDir \"out\" is not supported on heterographs; add reverse edge types to the graph and sample \"in\": %w", name, ErrArgument)
	default:
		return nil, fmt.Errorf("%s: EdgeDir %q; want \"in\" (the default): %w", name, edgeDir, ErrArgument)
	}
	p := &heteroPrepared{ntypes: g.NTypes(), ces: g.CanonicalETypes(), fans: fans, prob: prob, replace: replace}
	idx := map[string]int{}
	for k, nt := range p.ntypes {
		idx[nt] = k
		n := g.NumNodesOf(nt)
		p.numN = append(p.numN, n)
		p.offsets = append(p.offsets, p.total)
		p.total += n
	}
	if p.total > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d nodes over all node types; the sampler's int32 relabelling marker supports at most %d: %w", name, p.total, math.MaxInt32, ErrArgument)
	}
	for r, ce := range p.ces {
		p.si = append(p.si, idx[ce.Src])
		p.di = append(p.di, idx[ce.Dst])
		key := ce.String()
		p.adjs = append(p.adjs, g.AdjOf(key))
		_, od := g.EdgesOf(key)
		p.owners = append(p.owners, od.Int64s())
		var w []float32
		used := false
		for _, f := range fans {
			used = used || f[r] != 0
		}
		if prob != "" && used {
			if !g.HasEDataOf(key, prob) {
				return nil, fmt.Errorf("%s: Prob %q is not edge data of edge type %v: %w", name, prob, ce, ErrArgument)
			}
			t := g.EDataOf(key, prob)
			sh := t.Shape()
			ne := g.NumEdgesOf(key)
			if t.DType() != tensor.Float32 || !(len(sh) == 1 || len(sh) == 2 && sh[1] == 1) {
				return nil, fmt.Errorf("%s: Prob %q of edge type %v must be float32 of shape (%d) or (%d, 1), got %s %v: %w",
					name, prob, ce, ne, ne, t.DType(), sh, ErrArgument)
			}
			w = t.Float32s()
		}
		p.weights = append(p.weights, w)
	}
	return p, nil
}

// resolveFanouts turns s.Fanouts into [layer][relation] fanouts for g.
func (s HeteroNeighborSampler) resolveFanouts(name string, g *graph.Graph) ([][]int, error) {
	if g == nil {
		return nil, fmt.Errorf("%s: the graph is nil: %w", name, ErrArgument)
	}
	if len(s.Fanouts) == 0 {
		return nil, fmt.Errorf("%s: Fanouts is empty; give one map {edge type: fanout} per layer: %w", name, ErrArgument)
	}
	ces := g.CanonicalETypes()
	fans := make([][]int, len(s.Fanouts))
	for l, m := range s.Fanouts {
		f := make([]int, len(ces))
		set := make([]string, len(ces))
		star, hasStar := m["*"]
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := m[k]
			if v < -1 {
				return nil, fmt.Errorf("%s: Fanouts[%d][%q] = %d; a fanout is a count >= 0, or -1 for all neighbours: %w", name, l, k, v, ErrArgument)
			}
			if k == "*" {
				continue
			}
			r, err := matchEType(ces, k)
			if err != nil {
				return nil, fmt.Errorf("%s: Fanouts[%d]: %w", name, l, err)
			}
			if set[r] != "" {
				return nil, fmt.Errorf("%s: Fanouts[%d]: keys %q and %q name the same edge type %v: %w", name, l, set[r], k, ces[r], ErrArgument)
			}
			set[r], f[r] = k, v
		}
		var missing []string
		for r, ce := range ces {
			if set[r] != "" {
				continue
			}
			if hasStar {
				f[r] = star
				continue
			}
			missing = append(missing, ce.Key())
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("%s: Fanouts[%d] has no fanout for edge type(s) %s; give every edge type a fanout (0 to skip it, or a \"*\" entry for the rest): %w",
				name, l, strings.Join(missing, ", "), ErrArgument)
		}
		fans[l] = f
	}
	return fans, nil
}

// matchEType returns the index in ces of the edge type named key (a name
// one canonical edge type has, the String form or "src:etype:dst").
func matchEType(ces []graph.CanonicalEType, key string) (int, error) {
	found := -1
	var same []string
	for r, ce := range ces {
		if ce.String() == key || ce.Key() == key {
			return r, nil
		}
		if ce.EType == key {
			found = r
			same = append(same, ce.Key())
		}
	}
	if len(same) > 1 {
		return 0, fmt.Errorf("edge type %q is ambiguous (%s); use the form \"src:etype:dst\": %w", key, strings.Join(same, ", "), ErrArgument)
	}
	if found < 0 {
		names := make([]string, len(ces))
		for i, ce := range ces {
			names[i] = ce.Key()
		}
		return 0, fmt.Errorf("no edge type %q (have %s): %w", key, strings.Join(names, ", "), ErrArgument)
	}
	return found, nil
}

func (s HeteroNeighborSampler) prepare(name string, g *graph.Graph) (*heteroPrepared, error) {
	fans, err := s.resolveFanouts(name, g)
	if err != nil {
		return nil, err
	}
	return prepareHetero(name, g, fans, s.EdgeDir, s.Prob, s.Replace)
}

// heteroPrepare is NeighborSampler's fanouts applied to every edge type.
func (s NeighborSampler) heteroPrepare(name string, g *graph.Graph) (*heteroPrepared, error) {
	if g == nil {
		return nil, fmt.Errorf("%s: the graph is nil: %w", name, ErrArgument)
	}
	if len(s.Fanouts) == 0 {
		return nil, fmt.Errorf("%s: Fanouts is empty; give one fanout per layer (a count >= 0, or -1 for all neighbours): %w", name, ErrArgument)
	}
	nr := len(g.CanonicalETypes())
	fans := make([][]int, len(s.Fanouts))
	for l, f := range s.Fanouts {
		if f < -1 {
			return nil, fmt.Errorf("%s: Fanouts[%d] = %d; a fanout is a count >= 0, or -1 for all neighbours: %w", name, l, f, ErrArgument)
		}
		fans[l] = make([]int, nr)
		for r := range fans[l] {
			fans[l][r] = f
		}
	}
	return prepareHetero(name, g, fans, s.EdgeDir, s.Prob, s.Replace)
}

// validateWeights scans every weight used, as NeighborSampler.Validate.
func (p *heteroPrepared) validateWeights(name string) error {
	for r, w := range p.weights {
		for e, x := range w {
			if !validWeight(x) {
				return fmt.Errorf("%s: Prob %q of edge type %v: edge %d has weight %g; weights must be finite and >= 0: %w",
					name, p.prob, p.ces[r], e, x, ErrArgument)
			}
		}
	}
	return nil
}

// Validate checks the options against g as SampleHeteroBlocks does and
// scans every sampling weight (NewHeteroDataLoader calls it once).
func (s HeteroNeighborSampler) Validate(g *graph.Graph) error {
	const name = "sampling.HeteroNeighborSampler"
	p, err := s.prepare(name, g)
	if err != nil {
		return err
	}
	return p.validateWeights(name)
}

// ValidateHetero is Validate for a heterograph (NewHeteroDataLoader
// calls it once).
func (s HeteroNeighborSampler) ValidateHetero(g *graph.Graph) error { return s.Validate(g) }

// ValidateHetero checks the options against the heterograph g as
// SampleHeteroBlocks does and scans every sampling weight
// (NewHeteroDataLoader calls it once).
func (s NeighborSampler) ValidateHetero(g *graph.Graph) error {
	const name = "sampling.NeighborSampler"
	p, err := s.heteroPrepare(name, g)
	if err != nil {
		return err
	}
	return p.validateWeights(name)
}

// SampleHeteroBlocks samples len(Fanouts) layers of neighbours of seeds
// (node type -> ids of that type) and returns the blocks, input layer first
// (see HeteroSampler). Every block has every node type and edge type of g.
// For each node type, block i's source nodes are its destination nodes (in
// order, repeats included) followed by the newly seen neighbours of that
// type in order of first appearance (relations in canonical order, then
// destination order, then adjacency order); block i's destination nodes
// are block i+1's source nodes, and the last block's are the seeds (node
// types without seeds have none). Blocks hold parent node ids as
// SrcData(ntype, graph.NID) and parent edge ids (within each relation) as
// EData(etype, graph.EID). Errors name an invalid option (an unknown,
// ambiguous or missing edge type of a fanout map), a node type of seeds
// that g does not have, a seed id outside [0, NumNodesOf(ntype)), or an
// invalid weight met while sampling; a cancelled evaluation (runctx) stops
// it between layers with the context's error.
func (s HeteroNeighborSampler) SampleHeteroBlocks(g *graph.Graph, seeds map[string][]int64, epochSeed uint64) ([]*graph.HeteroBlock, error) {
	const name = "sampling.HeteroNeighborSampler.SampleHeteroBlocks"
	p, err := s.prepare(name, g)
	if err != nil {
		return nil, err
	}
	dst, err := p.seedLists(name, seeds)
	if err != nil {
		return nil, err
	}
	return p.sample(dst, epochSeed, nil)
}

// SampleHeteroBlocks is HeteroNeighborSampler.SampleHeteroBlocks with
// fanout Fanouts[i] for every edge type in layer i (DGL's
// NeighborSampler([k, ...]) on a heterograph).
func (s NeighborSampler) SampleHeteroBlocks(g *graph.Graph, seeds map[string][]int64, epochSeed uint64) ([]*graph.HeteroBlock, error) {
	const name = "sampling.NeighborSampler.SampleHeteroBlocks"
	p, err := s.heteroPrepare(name, g)
	if err != nil {
		return nil, err
	}
	dst, err := p.seedLists(name, seeds)
	if err != nil {
		return nil, err
	}
	return p.sample(dst, epochSeed, nil)
}

// seedLists checks seeds and returns them per node type index.
func (p *heteroPrepared) seedLists(name string, seeds map[string][]int64) ([][]int64, error) {
	dst := make([][]int64, len(p.ntypes))
	keys := make([]string, 0, len(seeds))
	for k := range seeds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, nt := range keys {
		k := sort.SearchStrings(p.ntypes, nt)
		if k >= len(p.ntypes) || p.ntypes[k] != nt {
			return nil, fmt.Errorf("%s: seeds of node type %q, which the graph does not have (have %v): %w", name, nt, p.ntypes, ErrArgument)
		}
		if err := checkSeeds(fmt.Sprintf("%s: node type %q", name, nt), seeds[nt], p.numN[k]); err != nil {
			return nil, err
		}
		dst[k] = seeds[nt]
	}
	return dst, nil
}

// relKey returns the key of relation r's streams in the layer whose key is
// lk; relation 0 keeps lk, so that a graph of one relation samples as
// NeighborSampler does.
func relKey(lk uint64, r int) uint64 { return lk ^ mix64(uint64(r)*golden) }

// sample runs the layers over valid seeds (per node type index), without
// the (valid) edges excl[r] of each relation r (excl may be nil).
func (p *heteroPrepared) sample(seeds [][]int64, epochSeed uint64, excl [][]int64) ([]*graph.HeteroBlock, error) {
	ws := getWorkspace(p.total)
	defer func() {
		ws.account()
		putWorkspace(ws)
	}()
	xs := make([]*exclusion, len(p.ces))
	for r, ex := range excl {
		if len(ex) > 0 {
			xs[r] = newExclusion(p.adjs[r], p.owners[r], ex)
		}
	}
	nt, nr := len(p.ntypes), len(p.ces)
	blocks := make([]*graph.HeteroBlock, len(p.fans))
	dst := seeds
	for l := len(p.fans) - 1; l >= 0; l-- {
		if err := runctx.Err(); err != nil {
			return nil, err
		}
		lk := layerKey(epochSeed, l)
		mark := ws.mark
		src := make([][]int64, nt)
		numDst := make([]int, nt)
		for k := range dst {
			numDst[k] = len(dst[k])
			s := make([]int64, len(dst[k]), len(dst[k])+len(dst[k])/2)
			copy(s, dst[k])
			off := p.offsets[k]
			for i, v := range s {
				if mark[off+int(v)] == 0 {
					mark[off+int(v)] = int32(i + 1)
				}
			}
			src[k] = s
		}
		rels := make([]graph.BlockRelation, nr)
		var err error
		var nbytes int64
		for r := 0; r < nr; r++ {
			d := dst[p.di[r]]
			f := p.fans[l][r]
			if f == 0 || len(d) == 0 {
				rels[r] = graph.BlockRelation{Indptr: make([]int64, len(d)+1), Indices: []int64{}, EIDs: []int64{}}
				nbytes += int64(len(d)+1) * 8
				continue
			}
			c := &layerSpec{adj: p.adjs[r], weights: p.weights[r], probName: p.prob, fanout: f,
				replace: p.replace, key: relKey(lk, r), excl: xs[r]}
			indptr, nbr, eids, e := pickLayer(ws, c, d)
			if e != nil {
				err = e
				break
			}
			si := p.si[r]
			off := p.offsets[si]
			s := src[si]
			for j, u := range nbr {
				m := mark[off+int(u)]
				if m == 0 {
					s = append(s, u)
					m = int32(len(s))
					mark[off+int(u)] = m
				}
				nbr[j] = int64(m - 1)
			}
			src[si] = s
			rels[r] = graph.BlockRelation{Indptr: indptr, Indices: nbr, EIDs: eids}
			nbytes += int64(len(indptr)+len(nbr)) * 8
		}
		for k, s := range src {
			off := p.offsets[k]
			for _, u := range s {
				mark[off+int(u)] = 0
			}
		}
		if err != nil {
			return nil, err
		}
		b, err := graph.NewHeteroBlock(p.ntypes, src, numDst, p.ces, rels)
		if err != nil {
			return nil, err // a bug: consistent by construction
		}
		// Parent ids as block data; their tensors count themselves in the
		// memory accounting, the adjacency arrays are counted here.
		for _, n := range p.ntypes {
			if err := b.SetSrcData(n, graph.NID, b.SrcNodes(n)); err != nil {
				return nil, err
			}
		}
		for _, ce := range p.ces {
			key := ce.String()
			if t := b.EIDs(key); t != nil {
				if err := b.SetEData(key, graph.EID, t); err != nil {
					return nil, err
				}
			}
		}
		tensor.CountBytes("cpu", nbytes)
		runtime.AddCleanup(b, func(n int64) { tensor.CountBytes("cpu", -n) }, nbytes)
		blocks[l] = b
		dst = src
	}
	return blocks, nil
}

// newExclusion returns the exclusion marks of the edges excl (valid ids of
// a's edges; owner[e] is the node whose list in a holds edge e), freshly
// allocated (a heterograph has one per relation).
func newExclusion(a *tensor.Adj, owner, excl []int64) *exclusion {
	x := &exclusion{edges: make([]uint64, (a.NumEdges()+63)/64), nodes: make([]uint64, (a.NumDst+63)/64)}
	for _, e := range excl {
		x.edges[e>>6] |= 1 << (e & 63)
		v := owner[e]
		x.nodes[v>>6] |= 1 << (v & 63)
	}
	return x
}

// HeteroExcludingSampler is a HeteroSampler that can sample as if some
// edges were removed from the heterograph (the exclude_eids argument of
// DGL's BlockSampler.sample_blocks, a dict {etype: eids}), as the
// heterograph edge DataLoader needs for its Exclude modes. NeighborSampler
// and HeteroNeighborSampler are HeteroExcludingSamplers.
type HeteroExcludingSampler interface {
	HeteroSampler
	// SampleHeteroBlocksExcluding is SampleHeteroBlocks on g without the
	// edges exclude[etype] (edge ids within that edge type, repeats
	// allowed; keys as the fanout maps accept: an edge type name, the
	// canonical String form or "src:etype:dst").
	SampleHeteroBlocksExcluding(g *graph.Graph, seeds map[string][]int64, epochSeed uint64, exclude map[string][]int64) ([]*graph.HeteroBlock, error)
}

var (
	_ HeteroExcludingSampler = NeighborSampler{}
	_ HeteroExcludingSampler = HeteroNeighborSampler{}
)

// resolveExclusion turns exclude (etype key -> edge ids) into per-relation
// lists, checking the keys and the ids.
func (p *heteroPrepared) resolveExclusion(name string, g *graph.Graph, exclude map[string][]int64) ([][]int64, error) {
	if len(exclude) == 0 {
		return nil, nil
	}
	out := make([][]int64, len(p.ces))
	keys := make([]string, 0, len(exclude))
	for k := range exclude {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r, err := matchEType(p.ces, k)
		if err != nil {
			return nil, fmt.Errorf("%s: exclude: %w", name, err)
		}
		ne := int64(len(p.owners[r]))
		for i, e := range exclude[k] {
			if e < 0 || e >= ne {
				return nil, fmt.Errorf("%s: exclude[%q]: edge id %d (position %d) is outside [0, %d): %w", name, k, e, i, ne, ErrArgument)
			}
		}
		out[r] = append(out[r], exclude[k]...)
	}
	return out, nil
}

// SampleHeteroBlocksExcluding is SampleHeteroBlocks with the edges
// exclude[etype] (edge ids within each edge type) removed from g first, as
// DGL's sample_neighbors(exclude_edges={etype: eids}): an excluded edge is
// never sampled, and a node that has some draws from its remaining edges.
// Nodes without an excluded edge are sampled exactly as by
// SampleHeteroBlocks with the same epochSeed. Errors: those of
// SampleHeteroBlocks, an unknown or ambiguous edge type key, an excluded
// id outside [0, NumEdgesOf(etype)) (naming both).
func (s HeteroNeighborSampler) SampleHeteroBlocksExcluding(g *graph.Graph, seeds map[string][]int64, epochSeed uint64, exclude map[string][]int64) ([]*graph.HeteroBlock, error) {
	const name = "sampling.HeteroNeighborSampler.SampleHeteroBlocksExcluding"
	p, err := s.prepare(name, g)
	if err != nil {
		return nil, err
	}
	return p.sampleExcluding(name, g, seeds, epochSeed, exclude)
}

// SampleHeteroBlocksExcluding is HeteroNeighborSampler's with fanout
// Fanouts[i] for every edge type in layer i.
func (s NeighborSampler) SampleHeteroBlocksExcluding(g *graph.Graph, seeds map[string][]int64, epochSeed uint64, exclude map[string][]int64) ([]*graph.HeteroBlock, error) {
	const name = "sampling.NeighborSampler.SampleHeteroBlocksExcluding"
	p, err := s.heteroPrepare(name, g)
	if err != nil {
		return nil, err
	}
	return p.sampleExcluding(name, g, seeds, epochSeed, exclude)
}

func (p *heteroPrepared) sampleExcluding(name string, g *graph.Graph, seeds map[string][]int64, epochSeed uint64, exclude map[string][]int64) ([]*graph.HeteroBlock, error) {
	dst, err := p.seedLists(name, seeds)
	if err != nil {
		return nil, err
	}
	x, err := p.resolveExclusion(name, g, exclude)
	if err != nil {
		return nil, err
	}
	return p.sample(dst, epochSeed, x)
}
