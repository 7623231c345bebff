package sampling

import (
	"sync"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
)

// BenchmarkHeteroSampleBlocks compares the hetero sampler's edges/s with
// the homogeneous sampler's on the same edges, batches of 1024 seeds in
// one goroutine:
//
//   - 100K-2M: the power-law graph of BenchmarkSampleBlocks, fanouts
//     [15, 10, 5], sampled by NeighborSampler.SampleBlocks ("homogeneous")
//     and by HeteroNeighborSampler.SampleHeteroBlocks on the same graph
//     ("hetero"; one node type, one edge type: identical blocks);
//   - mag-0.1: SyntheticMAG at scale 0.1 (194K nodes, 3.7M edges of 7
//     relations), paper seeds, fanouts [25, 20] per edge type ("hetero"),
//     and the homogeneous sampler on its ToHomogeneous graph with the
//     same fanouts over all in-edges of a node ("homogeneous").
//
// The goal is hetero >= 80% of homogeneous edges/s.
func BenchmarkHeteroSampleBlocks(b *testing.B) {
	b.Run("100K-2M/homogeneous", func(b *testing.B) {
		g, seeds := benchGraph(b, "100K-2M")
		benchHomo(b, g, seeds, NeighborSampler{Fanouts: []int{15, 10, 5}})
	})
	b.Run("100K-2M/hetero", func(b *testing.B) {
		g, seeds := benchGraph(b, "100K-2M")
		s := HeteroNeighborSampler{Fanouts: []map[string]int{{"*": 15}, {"*": 10}, {"*": 5}}}
		benchHetero(b, g, map[string][]int64{graph.DefaultNType: seeds}, "_N", s)
	})
	b.Run("mag-0.1/homogeneous", func(b *testing.B) {
		m := benchMAG(b)
		benchHomo(b, m.homo, m.homoSeeds, NeighborSampler{Fanouts: []int{25, 20}})
	})
	b.Run("mag-0.1/hetero", func(b *testing.B) {
		m := benchMAG(b)
		s := HeteroNeighborSampler{Fanouts: []map[string]int{{"*": 25}, {"*": 20}}}
		benchHetero(b, m.g, map[string][]int64{"paper": m.seeds}, "paper", s)
	})
}

func benchHomo(b *testing.B, g *graph.Graph, seeds []int64, s NeighborSampler) {
	nb := len(seeds) / 1024
	edges := 0
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		k := i % nb
		blocks, err := s.SampleBlocks(g, seeds[k*1024:(k+1)*1024], uint64(i/nb))
		if err != nil {
			b.Fatal(err)
		}
		for _, blk := range blocks {
			edges += blk.NumEdges()
		}
	}
	reportEdges(b, edges, cpu0)
	b.ReportMetric(float64(edges)/float64(b.N), "edges/batch")
}

func benchHetero(b *testing.B, g *graph.Graph, seeds map[string][]int64, nt string, s HeteroSampler) {
	all := seeds[nt]
	nb := len(all) / 1024
	edges := 0
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		k := i % nb
		blocks, err := s.SampleHeteroBlocks(g, map[string][]int64{nt: all[k*1024 : (k+1)*1024]}, uint64(i/nb))
		if err != nil {
			b.Fatal(err)
		}
		for _, blk := range blocks {
			edges += blk.NumEdges()
		}
	}
	reportEdges(b, edges, cpu0)
	b.ReportMetric(float64(edges)/float64(b.N), "edges/batch")
}

var benchMAGOnce struct {
	sync.Once
	g, homo          *graph.Graph
	seeds, homoSeeds []int64
}

// benchMAG builds SyntheticMAG at scale 0.1 and its homogeneous form once;
// the seeds are the training papers (ids in the homogeneous graph too).
func benchMAG(b *testing.B) *struct {
	sync.Once
	g, homo          *graph.Graph
	seeds, homoSeeds []int64
} {
	m := &benchMAGOnce
	m.Do(func() {
		d, err := datasets.SyntheticMAG(datasets.SyntheticMAGOptions{Scale: 0.1, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		m.g = d.Graph
		if m.homo, err = m.g.ToHomogeneous(nil, nil); err != nil {
			b.Fatal(err)
		}
		var off int64
		for _, nt := range m.g.NTypes() {
			if nt == "paper" {
				break
			}
			off += int64(m.g.NumNodesOf(nt))
		}
		m.seeds = d.TrainIdx.Int64s()
		for _, v := range m.seeds {
			m.homoSeeds = append(m.homoSeeds, off+v)
		}
		for _, ce := range m.g.CanonicalETypes() {
			m.g.AdjOf(ce.String())
		}
		m.homo.Adj()
	})
	return m
}
