package dist

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/graphstore"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// PartitionOptions configures Partition (the parameters of DGL's
// dgl.distributed.partition_graph, in Go case).
type PartitionOptions struct {
	// NumParts is the number of partitions, >= 1.
	NumParts int
	// PartMethod is "metis" (the default: METIS k-way through libmetis,
	// minimizing the edge cut of the symmetrized graph) or "random" (a
	// seeded random permutation cut into NumParts equal ranges).
	PartMethod string
	// BalanceNtypes names a bool node data mask (usually "train_mask")
	// whose true nodes METIS balances across parts as a second vertex
	// constraint, as DGL's balance_ntypes; "" balances node counts only.
	BalanceNtypes string
	// BalanceEdges also balances the in-degree sum (the inner edges) of
	// the parts, as DGL's balance_edges.
	BalanceEdges bool
	// NumHops is the halo depth; 0 means 1, the only value supported.
	NumHops int
	// Seed seeds METIS and the random method.
	Seed int64
}

// PartStats describes one partition.
type PartStats struct {
	InnerNodes, HaloNodes, InnerEdges, BalancedNodes int
}

// Partitioning is a partition of a homogeneous graph's nodes (every node in
// exactly one part) with its 1-hop halos: part p's subgraph holds its inner
// nodes, the in-neighbours of those (the halo), and every in-edge of its
// inner nodes, so that every edge is an inner edge of exactly one part (its
// destination's), as DGL's partitions with num_hops=1.
type Partitioning struct {
	Options PartitionOptions
	// Assign is the part of every node (N) int64.
	Assign []int64
	// NewID maps an original node id to its id after relabelling, which
	// numbers the nodes of part 0 first, then part 1, ... (in original id
	// order within a part; DGL's shuffled ids): part p's nodes are
	// [NodeMap[p], NodeMap[p+1]). OrigID is its inverse.
	NewID, OrigID []int64
	NodeMap       []int64
	// EdgeMap does the same for edge ids: part p's inner edges get new ids
	// [EdgeMap[p], EdgeMap[p+1]).
	EdgeMap []int64
	// EdgeCut is the number of g's edges whose endpoints lie in two parts;
	// METISCut is METIS's objective (the cut of the symmetrized, simple
	// graph; 0 for random).
	EdgeCut, METISCut int64
	// Parts describes each part.
	Parts []PartStats
	// NodeBalance and BalancedBalance are the largest part over the mean
	// part of node counts and of BalanceNtypes nodes (1 is perfect).
	NodeBalance, BalancedBalance float64
	g                            *graph.Graph
}

// Partition splits the homogeneous graph g into opts.NumParts parts (the
// computation of DGL's partition_graph; Save writes the parts). METIS sees
// g symmetrized without self loops or duplicate edges, with one vertex
// weight per node (1), plus the BalanceNtypes mask and the in-degree when
// asked. Errors: a nil or heterogeneous graph, NumParts < 1 or above the
// node count, an unknown PartMethod, NumHops other than 1, a missing or
// non-bool BalanceNtypes (ErrArgument), libmetis missing (ErrNoMETIS) or
// failing (ErrMETIS).
func Partition(g *graph.Graph, opts PartitionOptions) (*Partitioning, error) {
	const op = "Partition"
	if g == nil || !g.IsHomogeneous() {
		return nil, errf(ErrArgument, op, "the graph must be a homogeneous graph, not nil")
	}
	n := g.NumNodes()
	if opts.PartMethod == "" {
		opts.PartMethod = "metis"
	}
	if opts.NumHops == 0 {
		opts.NumHops = 1
	}
	switch {
	case opts.NumParts < 1 || opts.NumParts > max(n, 1):
		return nil, errf(ErrArgument, op, "NumParts %d; want 1 <= NumParts <= %d (the node count)", opts.NumParts, n)
	case opts.PartMethod != "metis" && opts.PartMethod != "random":
		return nil, errf(ErrArgument, op, "PartMethod %q; want \"metis\" or \"random\"", opts.PartMethod)
	case opts.NumHops != 1:
		return nil, errf(ErrArgument, op, "NumHops %d; only 1-hop halos are supported", opts.NumHops)
	}
	var balance []bool
	if opts.BalanceNtypes != "" {
		if !g.HasNData(opts.BalanceNtypes) || g.NData(opts.BalanceNtypes).DType() != tensor.Bool {
			return nil, errf(ErrArgument, op, "BalanceNtypes %q is not a bool node data mask (have %v)", opts.BalanceNtypes, g.NDataNames())
		}
		balance = g.NData(opts.BalanceNtypes).Bools()
	}
	src, dst := edges(g)
	p := &Partitioning{Options: opts, g: g}
	switch opts.PartMethod {
	case "random":
		perm := make([]int64, n)
		for i := range perm {
			perm[i] = int64(i)
		}
		rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x9e3779b97f4a7c15))
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		p.Assign = make([]int64, n)
		for i, v := range perm {
			p.Assign[v] = int64(i * opts.NumParts / n)
		}
	case "metis":
		xadj, adjncy := symmetricCSR(n, src, dst)
		ncon := 1
		if balance != nil {
			ncon++
		}
		if opts.BalanceEdges {
			ncon++
		}
		var vwgt []int64
		if ncon > 1 {
			indeg := make([]int64, n)
			for _, d := range dst {
				indeg[d]++
			}
			vwgt = make([]int64, 0, n*ncon)
			for i := 0; i < n; i++ {
				vwgt = append(vwgt, 1)
				if balance != nil {
					vwgt = append(vwgt, b2i(balance[i]))
				}
				if opts.BalanceEdges {
					vwgt = append(vwgt, indeg[i])
				}
			}
		}
		var err error
		if p.Assign, p.METISCut, err = partKway(xadj, adjncy, vwgt, ncon, opts.NumParts, opts.Seed); err != nil {
			return nil, errf(ErrMETIS, op, "%v", err)
		}
	}
	p.finish(src, dst, balance)
	return p, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// edges returns g's edge list as int64 slices.
func edges(g *graph.Graph) (src, dst []int64) {
	s, d := g.Edges()
	return s.Int64s(), d.Int64s()
}

// symmetricCSR is the CSR of the undirected simple graph of the edges:
// both directions, no self loops, no duplicates, neighbours sorted.
func symmetricCSR(n int, src, dst []int64) (xadj, adjncy []int64) {
	deg := make([]int64, n+1)
	for i := range src {
		if src[i] != dst[i] {
			deg[src[i]+1]++
			deg[dst[i]+1]++
		}
	}
	for i := 0; i < n; i++ {
		deg[i+1] += deg[i]
	}
	fill := slices.Clone(deg[:n])
	adj := make([]int64, deg[n])
	for i := range src {
		if s, d := src[i], dst[i]; s != d {
			adj[fill[s]], adj[fill[d]] = d, s
			fill[s]++
			fill[d]++
		}
	}
	xadj = make([]int64, n+1)
	adjncy = adj[:0]
	for v := 0; v < n; v++ {
		nb := adj[deg[v]:deg[v+1]]
		slices.Sort(nb)
		for i, u := range nb {
			if i == 0 || u != nb[i-1] {
				adjncy = append(adjncy, u)
			}
		}
		xadj[v+1] = int64(len(adjncy))
	}
	return xadj, adjncy
}

// finish computes the id maps, the edge cut and the statistics.
func (p *Partitioning) finish(src, dst []int64, balance []bool) {
	k, n := p.Options.NumParts, len(p.Assign)
	p.Parts = make([]PartStats, k)
	p.NodeMap = make([]int64, k+1)
	p.EdgeMap = make([]int64, k+1)
	for v, a := range p.Assign {
		p.Parts[a].InnerNodes++
		if balance != nil && balance[v] {
			p.Parts[a].BalancedNodes++
		}
	}
	for i := range src {
		p.Parts[p.Assign[dst[i]]].InnerEdges++
		if p.Assign[src[i]] != p.Assign[dst[i]] {
			p.EdgeCut++
		}
	}
	for i := 0; i < k; i++ {
		p.NodeMap[i+1] = p.NodeMap[i] + int64(p.Parts[i].InnerNodes)
		p.EdgeMap[i+1] = p.EdgeMap[i] + int64(p.Parts[i].InnerEdges)
	}
	p.NewID, p.OrigID = make([]int64, n), make([]int64, n)
	next := slices.Clone(p.NodeMap[:k])
	for v, a := range p.Assign {
		p.NewID[v] = next[a]
		p.OrigID[next[a]] = int64(v)
		next[a]++
	}
	for i := 0; i < k; i++ {
		p.Parts[i].HaloNodes = len(p.halo(i, src, dst))
	}
	imbalance := func(get func(PartStats) int) float64 {
		tot, mx := 0, 0
		for _, s := range p.Parts {
			tot += get(s)
			mx = max(mx, get(s))
		}
		if tot == 0 {
			return 1
		}
		return float64(mx) / (float64(tot) / float64(k))
	}
	p.NodeBalance = imbalance(func(s PartStats) int { return s.InnerNodes })
	p.BalancedBalance = imbalance(func(s PartStats) int { return s.BalancedNodes })
}

// halo is the sorted original ids of part's halo: the sources of its inner
// nodes' in-edges that are in another part.
func (p *Partitioning) halo(part int, src, dst []int64) []int64 {
	seen := map[int64]bool{}
	for i := range src {
		if p.Assign[dst[i]] == int64(part) && p.Assign[src[i]] != int64(part) {
			seen[src[i]] = true
		}
	}
	out := make([]int64, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// String summarizes the partitioning.
func (p *Partitioning) String() string {
	e := 0
	for _, s := range p.Parts {
		e += s.InnerEdges
	}
	return fmt.Sprintf("dist.Partitioning{%s, %d parts, edge cut %d of %d (%.2f%%), node balance %.3f, %q balance %.3f}",
		p.Options.PartMethod, len(p.Parts), p.EdgeCut, e, 100*float64(p.EdgeCut)/math.Max(1, float64(e)), p.NodeBalance, p.Options.BalanceNtypes, p.BalancedBalance)
}

// PartGraph builds part's subgraph: local nodes are the inner nodes (in new
// id order) then the halo nodes (in new id order), edges are every in-edge
// of the inner nodes, in original edge id order. Node data "_ID"
// (graph.NID) holds each local node's new global id, "orig_id" its original
// id, "inner_node" whether it is inner, "part_id" its part; edge data
// "_ID" the new global edge id, "orig_id" the original one, "inner_edge"
// (all true with 1-hop halos); g's node data (of every local node, halo
// included) and edge data are copied.
func (p *Partitioning) PartGraph(part int) (*graph.Graph, error) {
	const op = "Partitioning.PartGraph"
	if part < 0 || part >= len(p.Parts) {
		return nil, errf(ErrArgument, op, "part %d outside [0, %d)", part, len(p.Parts))
	}
	g := p.g
	src, dst := edges(g)
	halo := p.halo(part, src, dst)
	slices.SortFunc(halo, func(a, b int64) int { return int(p.NewID[a] - p.NewID[b]) })
	lo, hi := p.NodeMap[part], p.NodeMap[part+1]
	local := make([]int64, 0, int(hi-lo)+len(halo)) // original ids
	for nid := lo; nid < hi; nid++ {
		local = append(local, p.OrigID[nid])
	}
	local = append(local, halo...)
	pos := make(map[int64]int64, len(local))
	for i, v := range local {
		pos[v] = int64(i)
	}
	var ls, ld, eids []int64
	for e := range src {
		if p.Assign[dst[e]] == int64(part) {
			ls = append(ls, pos[src[e]])
			ld = append(ld, pos[dst[e]])
			eids = append(eids, int64(e))
		}
	}
	sg, err := graph.New(len(local), ls, ld)
	if err != nil {
		return nil, errf(ErrArgument, op, "%v", err)
	}
	newIDs, parts := make([]int64, len(local)), make([]int64, len(local))
	inner := make([]bool, len(local))
	for i, v := range local {
		newIDs[i], parts[i], inner[i] = p.NewID[v], p.Assign[v], i < int(hi-lo)
	}
	newE := make([]int64, len(eids))
	innerE := make([]bool, len(eids))
	for i := range newE {
		newE[i], innerE[i] = p.EdgeMap[part]+int64(i), true
	}
	err = tensor.Catch(func() {
		set := func(f func(string, *tensor.Tensor) error, name string, t *tensor.Tensor) {
			if e := f(name, t); e != nil {
				panic(e)
			}
		}
		set(sg.SetNData, graph.NID, tensor.FromInt64(newIDs, len(newIDs)))
		set(sg.SetNData, "orig_id", tensor.FromInt64(slices.Clone(local), len(local)))
		set(sg.SetNData, "inner_node", tensor.FromBool(inner, len(inner)))
		set(sg.SetNData, "part_id", tensor.FromInt64(parts, len(parts)))
		set(sg.SetEData, graph.EID, tensor.FromInt64(newE, len(newE)))
		set(sg.SetEData, "orig_id", tensor.FromInt64(slices.Clone(eids), len(eids)))
		set(sg.SetEData, "inner_edge", tensor.FromBool(innerE, len(innerE)))
		li, ei := tensor.FromInt64(local, len(local)), tensor.FromInt64(eids, len(eids))
		for _, name := range g.NDataNames() {
			if name != graph.NID {
				set(sg.SetNData, name, gatherRows(g.NData(name), li))
			}
		}
		for _, name := range g.EDataNames() {
			if name != graph.EID {
				set(sg.SetEData, name, gatherRows(g.EData(name), ei))
			}
		}
	})
	if err != nil {
		return nil, errf(ErrArgument, op, "part %d: %v", part, err)
	}
	return sg, nil
}

// gatherRows is x's rows at idx for any dtype (bool masks too).
func gatherRows(x, idx *tensor.Tensor) *tensor.Tensor {
	x = x.Detach()
	if x.DType() == tensor.Bool {
		b := x.Bools()
		out := make([]bool, idx.Numel())
		for i, v := range idx.Int64s() {
			out[i] = b[v]
		}
		return tensor.FromBool(out, len(out))
	}
	var out *tensor.Tensor
	tensor.NoGrad(func() { out = tensor.IndexSelect(x, idx) })
	return out
}

// PartitionConfig is the JSON file Save writes beside the part folders
// (DGL's partition config, GRAPH_NAME.json).
type PartitionConfig struct {
	GraphName  string      `json:"graph_name"`
	NumNodes   int         `json:"num_nodes"`
	NumEdges   int         `json:"num_edges"`
	PartMethod string      `json:"part_method"`
	NumParts   int         `json:"num_parts"`
	HaloHops   int         `json:"halo_hops"`
	NodeMap    [][2]int64  `json:"node_map"`
	EdgeMap    [][2]int64  `json:"edge_map"`
	EdgeCut    int64       `json:"edge_cut"`
	Parts      []PartEntry `json:"parts"`
}

// PartEntry is one part in a PartitionConfig: its graphstore file, relative
// to the config's folder, and its statistics.
type PartEntry struct {
	PartGraph string `json:"part_graph"`
	PartStats
}

// Save writes every part's subgraph (PartGraph) as a graphstore file
// OUT/partI/graph.gnnrgrph and the config OUT/GRAPHNAME.json, which it
// returns the path of (DGL's partition_graph output layout, in gnnrepl's
// formats). Errors name the file.
func (p *Partitioning) Save(outPath, graphName string) (string, error) {
	const op = "Partitioning.Save"
	if graphName == "" {
		return "", errf(ErrArgument, op, "the graph name is empty")
	}
	cfg := PartitionConfig{GraphName: graphName, NumNodes: len(p.Assign), NumEdges: p.g.NumEdges(), PartMethod: p.Options.PartMethod,
		NumParts: len(p.Parts), HaloHops: p.Options.NumHops, EdgeCut: p.EdgeCut}
	for i := range p.Parts {
		rel := filepath.Join(fmt.Sprintf("part%d", i), "graph.gnnrgrph")
		if err := os.MkdirAll(filepath.Join(outPath, filepath.Dir(rel)), 0o755); err != nil {
			return "", errf(ErrArgument, op, "%v", err)
		}
		sg, err := p.PartGraph(i)
		if err != nil {
			return "", err
		}
		if err := graphstore.Save(filepath.Join(outPath, rel), sg); err != nil {
			return "", errf(ErrArgument, op, "part %d: %v", i, err)
		}
		cfg.NodeMap = append(cfg.NodeMap, [2]int64{p.NodeMap[i], p.NodeMap[i+1]})
		cfg.EdgeMap = append(cfg.EdgeMap, [2]int64{p.EdgeMap[i], p.EdgeMap[i+1]})
		cfg.Parts = append(cfg.Parts, PartEntry{PartGraph: rel, PartStats: p.Parts[i]})
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	path := filepath.Join(outPath, graphName+".json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return "", errf(ErrArgument, op, "%v", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", errf(ErrArgument, op, "%v", err)
	}
	return path, nil
}

// PartitionGraph partitions g and writes the parts (DGL's
// dgl.distributed.partition_graph(g, graph_name, num_parts, out_path)):
// Partition then Save. It returns the partitioning and the config path.
func PartitionGraph(g *graph.Graph, graphName, outPath string, opts PartitionOptions) (*Partitioning, string, error) {
	p, err := Partition(g, opts)
	if err != nil {
		return nil, "", err
	}
	path, err := p.Save(outPath, graphName)
	return p, path, err
}

// LoadPartition opens part of the partitioned graph whose config Save
// wrote (DGL's load_partition): the config and the part's graph,
// memory-mapped from its graphstore file (close it with the returned
// Closer). Errors: an unreadable or malformed config, part out of range,
// a part file that does not match the config (node or edge counts).
func LoadPartition(configPath string, part int) (*graph.Graph, *PartitionConfig, io.Closer, error) {
	const op = "LoadPartition"
	b, err := os.ReadFile(configPath)
	if err != nil {
		return nil, nil, nil, errf(ErrArgument, op, "%v", err)
	}
	var cfg PartitionConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, nil, nil, errf(ErrArgument, op, "%s: %v", configPath, err)
	}
	if cfg.NumParts != len(cfg.Parts) || len(cfg.NodeMap) != cfg.NumParts || len(cfg.EdgeMap) != cfg.NumParts {
		return nil, nil, nil, errf(ErrArgument, op, "%s: num_parts %d but %d parts, %d node map and %d edge map ranges",
			configPath, cfg.NumParts, len(cfg.Parts), len(cfg.NodeMap), len(cfg.EdgeMap))
	}
	if part < 0 || part >= cfg.NumParts {
		return nil, nil, nil, errf(ErrArgument, op, "part %d outside [0, %d) of %s", part, cfg.NumParts, configPath)
	}
	e := cfg.Parts[part]
	path := filepath.Join(filepath.Dir(configPath), e.PartGraph)
	g, c, err := graphstore.Open(path)
	if err != nil {
		return nil, nil, nil, errf(ErrArgument, op, "part %d: %v", part, err)
	}
	nm := cfg.NodeMap[part]
	if g.NumNodes() != e.InnerNodes+e.HaloNodes || int64(e.InnerNodes) != nm[1]-nm[0] || g.NumEdges() != e.InnerEdges {
		c.Close()
		return nil, nil, nil, errf(ErrArgument, op, "%s has %d nodes and %d edges; %s says %d inner + %d halo nodes (node map %v) and %d edges",
			path, g.NumNodes(), g.NumEdges(), configPath, e.InnerNodes, e.HaloNodes, nm, e.InnerEdges)
	}
	return g, &cfg, c, nil
}
