package datasets

import (
	"slices"
	"testing"
)

// planetoidWant holds the statistics documented (and measured with Python)
// in the shared data README, section 1.
type planetoidWant struct {
	nodes, features, classes        int
	adjEntries, directed, selfLoops int
	directedNoLoops, undirected     int
	isolated                        int
	nnz                             int
	train, val, test                int
	valLo, testLo, testHi           int64
	classCounts                     []int
	unlabelled                      []int64
}

var planetoidWants = map[string]planetoidWant{
	"cora": {
		nodes: 2708, features: 1433, classes: 7,
		adjEntries: 10858, directed: 10556, selfLoops: 0, directedNoLoops: 10556, undirected: 5278,
		isolated: 0, nnz: 49216, train: 140, val: 500, test: 1000,
		valLo: 140, testLo: 1708, testHi: 2707,
		classCounts: []int{351, 217, 418, 818, 426, 298, 180},
	},
	"citeseer": {
		nodes: 3327, features: 3703, classes: 6,
		adjEntries: 9464, directed: 9228, selfLoops: 124, directedNoLoops: 9104, undirected: 4552,
		isolated: 48, nnz: 105165, train: 120, val: 500, test: 1000,
		valLo: 120, testLo: 2312, testHi: 3326,
		// 249 includes the 15 unlabelled nodes, which get class 0 like
		// numpy's argmax of an all-zero row.
		classCounts: []int{249 + 15, 590, 668, 701, 596, 508},
		unlabelled:  []int64{2407, 2489, 2553, 2682, 2781, 2953, 3042, 3063, 3212, 3214, 3250, 3292, 3305, 3306, 3309},
	},
	"pubmed": {
		nodes: 19717, features: 500, classes: 3,
		adjEntries: 88676, directed: 88651, selfLoops: 3, directedNoLoops: 88648, undirected: 44324,
		isolated: 0, nnz: 988031, train: 60, val: 500, test: 1000,
		valLo: 60, testLo: 18717, testHi: 19716,
		classCounts: []int{4103, 7739, 7875},
	},
}

func TestLoadPlanetoidRaw(t *testing.T) {
	dir := sharedData(t)
	noNetwork(t)
	for _, name := range PlanetoidNames {
		t.Run(name, func(t *testing.T) {
			w := planetoidWants[name]
			d, err := LoadPlanetoidRaw(dir, name)
			if err != nil {
				t.Fatal(err)
			}
			checkPlanetoid(t, d, w)
		})
	}
}

func checkPlanetoid(t *testing.T, d *PlanetoidRaw, w planetoidWant) {
	t.Helper()
	N, F, C := d.NumNodes, d.NumFeatures, d.NumClasses
	if N != w.nodes || F != w.features || C != w.classes {
		t.Fatalf("N, F, C = %d, %d, %d; want %d, %d, %d", N, F, C, w.nodes, w.features, w.classes)
	}
	if len(d.Features) != N*F || len(d.Labels) != N || len(d.Src) != len(d.Dst) {
		t.Fatalf("lengths: features %d, labels %d, src %d, dst %d", len(d.Features), len(d.Labels), len(d.Src), len(d.Dst))
	}

	// Edges.
	if d.AdjEntries != w.adjEntries {
		t.Errorf("AdjEntries = %d, want %d", d.AdjEntries, w.adjEntries)
	}
	if d.NumEdges() != w.directed || d.SelfLoops != w.selfLoops {
		t.Errorf("NumEdges, SelfLoops = %d, %d; want %d, %d", d.NumEdges(), d.SelfLoops, w.directed, w.selfLoops)
	}
	if got := d.NumEdges() - d.SelfLoops; got != w.directedNoLoops {
		t.Errorf("directed without self loops = %d, want %d", got, w.directedNoLoops)
	}
	if d.NumUndirectedEdges() != w.undirected {
		t.Errorf("NumUndirectedEdges = %d, want %d", d.NumUndirectedEdges(), w.undirected)
	}
	type pair struct{ s, t int64 }
	set := make(map[pair]bool, len(d.Src))
	deg := make([]int, N)
	loops := 0
	for i := range d.Src {
		s, u := d.Src[i], d.Dst[i]
		if s < 0 || s >= int64(N) || u < 0 || u >= int64(N) {
			t.Fatalf("edge %d (%d, %d) out of range", i, s, u)
		}
		if i > 0 && (d.Src[i-1] > s || d.Src[i-1] == s && d.Dst[i-1] >= u) {
			t.Fatalf("edges not strictly sorted by (src, dst) at %d", i)
		}
		set[pair{s, u}] = true
		if s == u {
			loops++
		} else {
			deg[s]++
		}
	}
	if loops != d.SelfLoops {
		t.Errorf("counted %d self loops, SelfLoops = %d", loops, d.SelfLoops)
	}
	for p := range set {
		if !set[pair{p.t, p.s}] {
			t.Fatalf("edge (%d, %d) has no reverse", p.s, p.t)
		}
	}
	isolated := 0
	for _, k := range deg {
		if k == 0 {
			isolated++
		}
	}
	if isolated != w.isolated {
		t.Errorf("nodes without neighbours = %d, want %d", isolated, w.isolated)
	}

	// Features.
	nnz := 0
	for _, v := range d.Features {
		if v != 0 {
			nnz++
		}
	}
	if nnz != w.nnz || d.FeatureNNZ != w.nnz {
		t.Errorf("feature nnz = %d (FeatureNNZ %d), want %d", nnz, d.FeatureNNZ, w.nnz)
	}

	// Split.
	if len(d.TrainIdx) != w.train || len(d.ValIdx) != w.val || len(d.TestIdx) != w.test {
		t.Errorf("split sizes %d/%d/%d, want %d/%d/%d", len(d.TrainIdx), len(d.ValIdx), len(d.TestIdx), w.train, w.val, w.test)
	}
	for i, v := range d.TrainIdx {
		if v != int64(i) {
			t.Fatalf("TrainIdx[%d] = %d", i, v)
		}
	}
	for i, v := range d.ValIdx {
		if v != w.valLo+int64(i) {
			t.Fatalf("ValIdx[%d] = %d, want %d", i, v, w.valLo+int64(i))
		}
	}
	if !slices.IsSorted(d.TestIdx) || d.TestIdx[0] != w.testLo || d.TestIdx[len(d.TestIdx)-1] != w.testHi {
		t.Errorf("TestIdx not sorted %d..%d", w.testLo, w.testHi)
	}
	if len(slices.Compact(slices.Clone(d.TestIdx))) != len(d.TestIdx) {
		t.Error("TestIdx has duplicates")
	}

	// Labels.
	counts := make([]int, C)
	for _, l := range d.Labels {
		if l < 0 || l >= int64(C) {
			t.Fatalf("label %d out of range", l)
		}
		counts[l]++
	}
	if !slices.Equal(counts, w.classCounts) {
		t.Errorf("class counts %v, want %v", counts, w.classCounts)
	}
	perClass := make([]int, C)
	for _, i := range d.TrainIdx {
		perClass[d.Labels[i]]++
	}
	for c, k := range perClass {
		if k != 20 {
			t.Errorf("train nodes of class %d = %d, want 20", c, k)
		}
	}
	if !slices.Equal(d.Unlabelled, w.unlabelled) {
		t.Errorf("Unlabelled = %v, want %v", d.Unlabelled, w.unlabelled)
	}
	// Unlabelled nodes have zero features and are in no split.
	for _, u := range d.Unlabelled {
		for _, v := range d.Features[int(u)*F : int(u+1)*F] {
			if v != 0 {
				t.Fatalf("unlabelled node %d has features", u)
			}
		}
		if slices.Contains(d.TrainIdx, u) || slices.Contains(d.ValIdx, u) {
			t.Fatalf("unlabelled node %d is in a split", u)
		}
		if _, found := slices.BinarySearch(d.TestIdx, u); found {
			t.Fatalf("unlabelled node %d is in the test set", u)
		}
	}
}
