package graph

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// autogradFactor is how many activation-sized tensors a layer keeps or
// creates per forward and backward (its output, the saved input and the
// gradient), the usual rule of thumb for training memory.
const autogradFactor = 3

// Advice says whether training on the analysed graph fits a memory budget.
// Every number is an estimate in bytes for a GCN / GraphSAGE-style model
// (per layer one dense transform and one aggregation, activations of
// HiddenSize floats per node); attention models add edge-sized tensors
// (E x heads x 4 bytes x 3 per layer) that are not counted.
type Advice struct {
	// MemoryBudget is the budget judged against; 0 when none was given and
	// none could be read, in which case no Fits verdict is meaningful.
	MemoryBudget int64
	// The model and loader assumed (see AnalyzeOptions).
	InFeats, HiddenSize, NumLayers, NumClasses, BatchSize int
	// ResidentBytes is what stays in memory for either way of training:
	// the graph's formats and data (Footprint.Total) plus the parameters
	// with their gradients and two Adam moments (4 copies).
	ResidentBytes int64
	// FullGraphBytes is ResidentBytes plus full-graph activations,
	// N x HiddenSize x 4 bytes x NumLayers x 3.
	FullGraphBytes int64
	FullGraphFits  bool
	// Fanouts are the candidate neighbour-sampling fanouts, judged.
	Fanouts []FanoutEstimate
	// Recommended is the first candidate (largest first) that fits, when
	// full-graph training does not; nil otherwise.
	Recommended []int
	// Notes are plain-language remarks on the structure (zero in-degree
	// nodes, a directed graph fed to GCN, self loops, duplicates, ...).
	Notes []string
}

// FanoutEstimate is the expected size of one mini-batch under a fanout
// list. The receptive field grows hop by hop from BatchSize seeds: a hop
// with fanout f samples, per frontier node, min(in-degree, f) in-edges in
// expectation (seeds are drawn uniformly; nodes reached over edges are
// weighted by out-degree), and m sampled edges reach
// (N - n) x (1 - exp(-m / N)) new nodes beyond the n already held.
type FanoutEstimate struct {
	Fanouts []int // DGL's order: Fanouts[0] is the input layer's
	// Nodes[h] is the expected number of distinct nodes after h hops
	// (Nodes[0] = seeds, Nodes[NumLayers] = the input layer's sources).
	Nodes []float64
	Edges float64 // sampled edges over all hops
	// Bytes is the mini-batch memory plus ResidentBytes. The mini-batch
	// holds the gathered input features (Nodes[NumLayers] x InFeats x 4),
	// the activations of every layer, each sized by the rows it outputs
	// (Σ_{k<NumLayers} Nodes[k] x HiddenSize x 4 x 3; at most the rule of
	// thumb receptive field x HiddenSize x 4 x NumLayers x 3), and the
	// blocks' structure (Edges x 24).
	Bytes int64
	Fits  bool
}

func advise(g *Graph, a *Analysis, opts AnalyzeOptions, inDeg, outDeg []int64) Advice {
	var ad Advice
	if opts.MemoryBudget < 0 {
		return ad
	}
	ad.MemoryBudget = opts.MemoryBudget
	if ad.MemoryBudget == 0 {
		ad.MemoryBudget = memAvailable()
	}
	ad.HiddenSize, ad.NumLayers, ad.BatchSize, ad.NumClasses = opts.HiddenSize, opts.NumLayers, opts.BatchSize, opts.NumClasses
	if ad.HiddenSize <= 0 {
		ad.HiddenSize = 256
	}
	if ad.NumLayers <= 0 {
		ad.NumLayers = 2
	}
	if ad.BatchSize <= 0 {
		ad.BatchSize = 1024
	}
	if ad.NumClasses <= 0 {
		ad.NumClasses = max(a.NumClasses, 1)
	}
	if len(g.ntypes) == 1 {
		if t, ok := g.ndata[0][opts.FeatKey]; ok && t.Dim() == 2 {
			ad.InFeats = t.Size(1)
		}
	}
	n := int64(a.NumNodes)
	h, l, f, c := int64(ad.HiddenSize), int64(ad.NumLayers), int64(ad.InFeats), int64(ad.NumClasses)
	params := f*h + (l-2)*h*h + h*c
	if l == 1 {
		params = f * c
	}
	ad.ResidentBytes = a.Memory.Total + 4*4*max(params, 0)
	ad.FullGraphBytes = ad.ResidentBytes + n*h*4*l*autogradFactor
	fits := func(b int64) bool { return ad.MemoryBudget > 0 && b <= ad.MemoryBudget }
	ad.FullGraphFits = fits(ad.FullGraphBytes)

	cands := opts.Fanouts
	if cands == nil {
		for _, k := range []int{30, 25, 20, 15, 10, 5, 3, 2, 1} {
			fo := make([]int, ad.NumLayers)
			for i := range fo {
				fo[i] = k
			}
			cands = append(cands, fo)
		}
	}
	for _, fo := range cands {
		est := estimateBatch(fo, ad, inDeg, outDeg)
		est.Bytes += ad.ResidentBytes
		est.Fits = fits(est.Bytes)
		ad.Fanouts = append(ad.Fanouts, est)
		if !ad.FullGraphFits && est.Fits && ad.Recommended == nil {
			ad.Recommended = append([]int(nil), fo...)
		}
	}
	ad.Notes = notes(a, ad)
	return ad
}

// estimateBatch computes the FanoutEstimate of fanouts (without the
// resident bytes).
func estimateBatch(fanouts []int, ad Advice, inDeg, outDeg []int64) FanoutEstimate {
	n := float64(len(inDeg))
	est := FanoutEstimate{Fanouts: append([]int(nil), fanouts...)}
	cur := math.Min(float64(ad.BatchSize), n)
	est.Nodes = append(est.Nodes, cur)
	// Sampling starts at the seeds with the output layer's fanout.
	for hop := 0; hop < len(fanouts); hop++ {
		fo := int64(fanouts[len(fanouts)-1-hop])
		var per float64
		if hop == 0 {
			per = meanCapped(inDeg, nil, fo)
		} else {
			per = meanCapped(inDeg, outDeg, fo)
		}
		m := cur * per
		est.Edges += m
		if n > 0 {
			cur += (n - cur) * (1 - math.Exp(-m/n))
		}
		est.Nodes = append(est.Nodes, cur)
	}
	src := est.Nodes[len(est.Nodes)-1]
	var rows float64 // rows output by the layers: layer NumLayers-1-k outputs Nodes[k]
	for _, x := range est.Nodes[:len(fanouts)] {
		rows += x
	}
	bytes := src*float64(ad.InFeats)*4 + rows*float64(ad.HiddenSize)*4*autogradFactor + est.Edges*24
	est.Bytes = int64(math.Ceil(bytes))
	return est
}

// meanCapped returns the mean of min(deg[i], f), weighted by w[i] when w
// is given (uniformly otherwise).
func meanCapped(deg, w []int64, f int64) float64 {
	var s, ws float64
	for i, d := range deg {
		x := float64(min(d, f))
		if w == nil {
			s += x
			ws++
		} else {
			s += float64(w[i]) * x
			ws += float64(w[i])
		}
	}
	if ws == 0 {
		return 0
	}
	return s / ws
}

func notes(a *Analysis, ad Advice) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if ad.MemoryBudget <= 0 {
		add("No memory budget given and none readable: set AnalyzeOptions.MemoryBudget for fit verdicts.")
	} else if ad.FullGraphFits {
		add("Full-graph training fits: about %s of %s.", tensor.FormatBytes(ad.FullGraphBytes), tensor.FormatBytes(ad.MemoryBudget))
	} else if ad.ResidentBytes > ad.MemoryBudget {
		add("The graph and its data alone need %s, more than the budget %s: memory-map the graph and keep features in a feature store (fp16 halves them).",
			tensor.FormatBytes(ad.ResidentBytes), tensor.FormatBytes(ad.MemoryBudget))
	} else if ad.Recommended != nil {
		add("Full-graph training needs about %s (budget %s); sample neighbours with fanouts %v and batch size %d instead.",
			tensor.FormatBytes(ad.FullGraphBytes), tensor.FormatBytes(ad.MemoryBudget), ad.Recommended, ad.BatchSize)
	} else {
		add("Neither full-graph training (%s) nor any candidate fanout fits %s: lower BatchSize or HiddenSize.",
			tensor.FormatBytes(ad.FullGraphBytes), tensor.FormatBytes(ad.MemoryBudget))
	}
	if a.InDegree.Zero > 0 {
		add("%d nodes have no in-edges: DGL's GraphConv and GATConv reject them unless allow_zero_in_degree is set; g.AddSelfLoop() gives every node one.", a.InDegree.Zero)
	}
	if a.NumEdges > a.SelfLoops && a.Reciprocity < 1 {
		add("The graph is directed (%.1f%% of edges have a reverse edge); GCN-style models usually run on g.ToBidirected().", 100*a.Reciprocity)
	}
	if a.SelfLoops > 0 {
		add("%d self loops are stored already: use g.RemoveSelfLoop().AddSelfLoop() rather than AddSelfLoop alone, which would double them.", a.SelfLoops)
	}
	if a.DuplicateEdges > 0 {
		add("%d duplicate edges: sum aggregation counts them twice; ToBidirected removes them.", a.DuplicateEdges)
	}
	if a.NumComponents > 1 {
		add("%d weakly connected components; the largest holds %.1f%% of the nodes.", a.NumComponents, 100*float64(a.LargestComponent)/float64(max(a.NumNodes, 1)))
	}
	if a.HasLabels && a.EdgeHomophily < 0.3 {
		add("Low edge homophily (%.2f): neighbours mostly have other labels; models that keep the node's own features apart (GraphSAGE, H2GCN, GPR-GNN) usually do better than GCN.", a.EdgeHomophily)
	}
	return out
}

// memAvailable returns MemAvailable from /proc/meminfo in bytes, or 0.
func memAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}
