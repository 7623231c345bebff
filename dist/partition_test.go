package dist

import (
	"errors"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
)

func cora(t *testing.T) *graph.Graph {
	t.Helper()
	ds, err := datasets.LoadPlanetoid("cora", shareddata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	return ds.Graph
}

// TestPartitionCora: METIS and random partitions of Cora into 2 and 4
// parts; every node in exactly one part, every edge an inner edge of
// exactly one part, complete halos, inverse id maps, METIS's edge cut far
// below random's, and a save / load round trip.
func TestPartitionCora(t *testing.T) {
	if _, err := METISAvailable(); err != nil {
		t.Skipf("libmetis not installed (apt-get install libmetis5): %v", err)
	}
	g := cora(t)
	src, dst := edges(g)
	for _, k := range []int{2, 4} {
		cut := map[string]int64{}
		for _, method := range []string{"metis", "random"} {
			p, err := Partition(g, PartitionOptions{NumParts: k, PartMethod: method, BalanceNtypes: "train_mask", Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			cut[method] = p.EdgeCut
			t.Logf("k=%d: %v", k, p)
			for v, a := range p.Assign {
				if a < 0 || a >= int64(k) || p.OrigID[p.NewID[v]] != int64(v) {
					t.Fatalf("node %d: part %d, new id %d", v, a, p.NewID[v])
				}
			}
			if method == "metis" && (p.NodeBalance > 1.1 || p.BalancedBalance > 1.2) {
				t.Errorf("k=%d metis: node balance %.3f, train balance %.3f", k, p.NodeBalance, p.BalancedBalance)
			}
			dir := t.TempDir()
			cfgPath, err := p.Save(dir, "cora")
			if err != nil {
				t.Fatal(err)
			}
			nodeSeen := make([]int, g.NumNodes())
			edgeSeen := make([]int, g.NumEdges())
			for part := 0; part < k; part++ {
				pg, cfg, c, err := LoadPartition(cfgPath, part)
				if err != nil {
					t.Fatal(err)
				}
				orig, inner := pg.NData("orig_id").Int64s(), pg.NData("inner_node").Bools()
				newID := pg.NData(graph.NID).Int64s()
				for i, v := range orig {
					if inner[i] {
						nodeSeen[v]++
						if newID[i] < cfg.NodeMap[part][0] || newID[i] >= cfg.NodeMap[part][1] {
							t.Fatalf("part %d: inner node %d has new id %d outside %v", part, v, newID[i], cfg.NodeMap[part])
						}
					}
					if newID[i] != p.NewID[v] {
						t.Fatalf("part %d: node %d new id %d, want %d", part, v, newID[i], p.NewID[v])
					}
				}
				ls, ld := edges(pg)
				for i, e := range pg.EData("orig_id").Int64s() {
					edgeSeen[e]++
					if orig[ls[i]] != src[e] || orig[ld[i]] != dst[e] || !inner[ld[i]] {
						t.Fatalf("part %d: local edge %d is not original edge %d", part, i, e)
					}
				}
				if pg.NData("feat").Size(0) != pg.NumNodes() {
					t.Fatalf("part %d: features of %d nodes", part, pg.NData("feat").Size(0))
				}
				c.Close()
			}
			for v, n := range nodeSeen {
				if n != 1 {
					t.Fatalf("node %d inner in %d parts", v, n)
				}
			}
			for e, n := range edgeSeen {
				if n != 1 {
					t.Fatalf("edge %d inner in %d parts", e, n)
				}
			}
		}
		if cut["metis"]*3 > cut["random"] {
			t.Errorf("k=%d: METIS edge cut %d is not far below random's %d", k, cut["metis"], cut["random"])
		}
	}
	if _, err := Partition(g, PartitionOptions{NumParts: 0}); !errors.Is(err, ErrArgument) {
		t.Errorf("NumParts 0: %v", err)
	}
	if _, err := Partition(g, PartitionOptions{NumParts: 2, BalanceNtypes: "feat"}); !errors.Is(err, ErrArgument) {
		t.Errorf("BalanceNtypes feat: %v", err)
	}
}
