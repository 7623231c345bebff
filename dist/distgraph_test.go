package dist

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// distConfigEnv passes the partition config to the ranks of TestDistMPI.
const distConfigEnv = "GNNREPL_DIST_TEST_CONFIG"

// runRanks re-executes this test binary under mpirun -np n running the
// tests that match pattern, with env added, and checks that each of want
// passed on every rank.
func runRanks(t *testing.T, n int, pattern string, env []string, want ...string) string {
	t.Helper()
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun not found (apt-get install openmpi-bin libopenmpi3)")
	}
	if _, err := loadMPI(); err != nil {
		t.Skipf("no MPI library: %v", err)
	}
	cmd := exec.Command(mpirun, "--allow-run-as-root", "--oversubscribe", "-np", fmt.Sprint(n),
		os.Args[0], "-test.run", pattern, "-test.v", "-test.count=1")
	cmd.Env = append(append(os.Environ(), childEnv+"=1", "OMPI_MCA_btl=self,vader"), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	s := out.String()
	if err != nil || strings.Contains(s, "--- FAIL") {
		t.Fatalf("mpirun -np %d: %v\n%s", n, err, s)
	}
	for _, w := range want {
		if c := strings.Count(s, "--- PASS: "+w); c != n {
			t.Fatalf("mpirun -np %d: %s passed on %d ranks\n%s", n, w, c, s)
		}
	}
	return s
}

// TestDistMPI partitions Cora with METIS into 2 parts and runs
// TestDistChild* on 2 ranks: distributed sampling and feature fetching
// against the single-process sampler, and DistEmbedding training.
func TestDistMPI(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in an MPI child")
	}
	if _, err := METISAvailable(); err != nil {
		t.Skipf("libmetis not installed: %v", err)
	}
	g := cora(t)
	p, err := Partition(g, PartitionOptions{NumParts: 2, BalanceNtypes: "train_mask", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.Save(t.TempDir(), "cora")
	if err != nil {
		t.Fatal(err)
	}
	s := runRanks(t, 2, "^TestDistChild", []string{distConfigEnv + "=" + cfg}, "TestDistChildSampling", "TestDistChildEmbedding")
	t.Logf("%s", s)
}

func distChild(t *testing.T) (*Comm, *DistGraph, *graph.Graph) {
	t.Helper()
	cfg := os.Getenv(distConfigEnv)
	if os.Getenv(childEnv) == "" || cfg == "" {
		t.Skip("runs under mpirun, started by TestDistMPI")
	}
	c, err := Init()
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenDistGraph(cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return c, d, cora(t)
}

func sameInt64s(t *testing.T, what string, a, b []int64) {
	t.Helper()
	if !slices.Equal(a, b) {
		t.Fatalf("%s differ:\n dist   %v\n single %v", what, a, b)
	}
}

func TestDistChildSampling(t *testing.T) {
	c, d, g := distChild(t)
	t.Logf("%v", d)
	if d.NumNodes() != g.NumNodes() || d.NumEdges() != g.NumEdges() {
		t.Fatalf("%v vs %v", d, g)
	}
	// FetchNodeData: every rank asks for ids owned by both parts.
	ids := []int64{int64(c.Rank()), 2707, 5, 1000 + int64(c.Rank()), 5}
	x, err := d.FetchNodeData("feat", ids)
	if err != nil {
		t.Fatal(err)
	}
	want := tensor.IndexSelect(g.NData("feat"), tensor.FromInt64(ids, len(ids)))
	if !slices.Equal(x.Float32s(), want.Float32s()) {
		t.Fatalf("FetchNodeData: rows differ")
	}
	none, err := d.FetchNodeData("label", nil)
	if err != nil || none.Size(0) != 0 {
		t.Fatalf("FetchNodeData of no ids: %v %v", none, err)
	}

	train := g.NData("train_mask")
	for _, s := range []sampling.NeighborSampler{
		{Fanouts: []int{5, 3}},
		{Fanouts: []int{4, 4}, Replace: true},
		{Fanouts: []int{-1, 2}},
	} {
		opts := sampling.LoaderOptions{BatchSize: 16, Shuffle: true, Seed: 7, Shard: c.Shard(),
			PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}}
		single, err := sampling.NewDataLoader(g, train, s, opts)
		if err != nil {
			t.Fatal(err)
		}
		dl, err := NewDistNodeDataLoader(d, train, s, opts)
		if err != nil {
			t.Fatal(err)
		}
		batches := 0
		for epoch := 0; epoch < 2; epoch++ {
			for dl.Next() {
				if !single.Next() {
					t.Fatalf("%v: the single-process loader ended first", s)
				}
				db, sb := dl.Blocks(), single.Blocks()
				if len(db) != len(sb) {
					t.Fatalf("%d vs %d blocks", len(db), len(sb))
				}
				for i := range db {
					what := fmt.Sprintf("%v epoch %d batch %d block %d", s, epoch, batches, i)
					if db[i].NumDstNodes() != sb[i].NumDstNodes() {
						t.Fatalf("%s: %d vs %d destinations", what, db[i].NumDstNodes(), sb[i].NumDstNodes())
					}
					sameInt64s(t, what+" source nodes", db[i].SrcNodeIDs(), sb[i].SrcNodeIDs())
					da, sa := db[i].Adj(), sb[i].Adj()
					sameInt64s(t, what+" indptr", da.Indptr, sa.Indptr)
					sameInt64s(t, what+" indices", da.Indices, sa.Indices)
					sameInt64s(t, what+" edge ids", db[i].EIDs().Int64s(), sb[i].EIDs().Int64s())
				}
				if !slices.Equal(db[0].SrcData("feat").Float32s(), sb[0].SrcData("feat").Float32s()) {
					t.Fatalf("%v batch %d: input features differ", s, batches)
				}
				last := len(db) - 1
				sameInt64s(t, "labels", db[last].DstData("label").Int64s(), sb[last].DstData("label").Int64s())
				batches++
			}
			if err := dl.Err(); err != nil {
				t.Fatal(err)
			}
			if single.Next() {
				t.Fatalf("%v: the distributed loader ended first", s)
			}
		}
		t.Logf("%v: %d batches equal to the single-process sampler's", s, batches)
	}
	if _, err := NewDistNodeDataLoader(d, train, sampling.NeighborSampler{Fanouts: []int{2}}, sampling.LoaderOptions{NumWorkers: 2}); err == nil {
		t.Fatal("NumWorkers 2: no error")
	}
}
