package dist

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
)

// badPartEnv passes the config with a damaged part 1 to TestDistBadChild.
const badPartEnv = "GNNREPL_DIST_TEST_BADPART"

// smallParts partitions a small synthetic graph at random into 2 parts
// (no METIS needed) and returns the config path.
func smallParts(t *testing.T) (*graph.Graph, string) {
	t.Helper()
	ds, err := datasets.Synthetic(datasets.SyntheticOptions{NumNodes: 300, NumEdges: 1500, NumFeatures: 8, NumClasses: 3,
		Homophily: 0.8, WordsPerRow: 3, NumTrain: 10, NumVal: 20, NumTest: 20, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	_, cfg, err := PartitionGraph(ds.Graph, "small", t.TempDir(), PartitionOptions{NumParts: 2, PartMethod: "random", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return ds.Graph, cfg
}

// TestPartitionBadInput: a config that does not match its part files, a
// truncated part file, a job with another number of ranks: errors naming
// the file and the mismatch.
func TestPartitionBadInput(t *testing.T) {
	_, cfg := smallParts(t)
	c := &Comm{size: 1, note: "test"}
	if _, err := OpenDistGraph(cfg, c); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "has 2 parts but the job has 1 ranks") {
		t.Errorf("2 parts, 1 rank: %v", err)
	}
	// A config edited to claim other node counts than the part holds.
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	parts := raw["parts"].([]any)
	p0 := parts[0].(map[string]any)
	for k, v := range p0 {
		if f, ok := v.(float64); ok && strings.Contains(strings.ToLower(k), "halo") {
			p0[k] = f + 7
		}
	}
	edited, _ := json.Marshal(raw)
	bad := filepath.Join(filepath.Dir(cfg), "edited.json")
	if err := os.WriteFile(bad, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := LoadPartition(bad, 0); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "edited.json says") {
		t.Errorf("a config that does not match part 0: %v", err)
	}
	// num_parts disagreeing with the lists.
	raw["num_parts"] = 3.0
	edited, _ = json.Marshal(raw)
	if err := os.WriteFile(bad, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := LoadPartition(bad, 0); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "num_parts 3 but 2 parts") {
		t.Errorf("num_parts 3: %v", err)
	}
	// A truncated part file.
	truncatePart(t, cfg, 1)
	if _, _, _, err := LoadPartition(cfg, 1); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "part 1") {
		t.Errorf("a truncated part: %v", err)
	}
	if _, _, _, err := LoadPartition(filepath.Join(t.TempDir(), "none.json"), 0); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("a missing config: %v", err)
	}
}

// truncatePart cuts part's graph file to half its length.
func truncatePart(t *testing.T, cfg string, part int) {
	t.Helper()
	var c PartitionConfig
	b, _ := os.ReadFile(cfg)
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(filepath.Dir(cfg), c.Parts[part].PartGraph)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// TestDistBadMPI: on 2 ranks, when part 1's file is truncated every rank
// gets an error from OpenDistGraph (rank 0's naming rank 1), none hangs.
func TestDistBadMPI(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in an MPI child")
	}
	_, cfg := smallParts(t)
	truncatePart(t, cfg, 1)
	s := runRanks(t, 2, "^TestDistBadChild$", []string{badPartEnv + "=" + cfg}, "TestDistBadChild")
	t.Logf("%s", s)
}

func TestDistBadChild(t *testing.T) {
	cfg := os.Getenv(badPartEnv)
	if os.Getenv(childEnv) == "" || cfg == "" {
		t.Skip("runs under mpirun, started by TestDistBadMPI")
	}
	c, err := Init()
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenDistGraph(cfg, c)
	want := "ranks [1] could not open their parts"
	if c.Rank() == 1 {
		want = "part 1"
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("rank %d: %v; want an error containing %q", c.Rank(), err, want)
	}
	t.Logf("rank %d: %v", c.Rank(), err)
	// The job goes on: a collective after the failure works.
	if err := c.Barrier(); err != nil {
		t.Fatal(err)
	}
}

// TestLaunchWithoutMPI: dist.Launch on a machine without mpirun is an
// ErrNoMPI error naming the launcher and the packages to install.
func TestLaunchWithoutMPI(t *testing.T) {
	file := filepath.Join(t.TempDir(), "train.go")
	if err := os.WriteFile(file, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err := Launch(2, file, LaunchOptions{})
	if !errors.Is(err, ErrNoMPI) || !strings.Contains(err.Error(), "no mpirun or mpiexec in PATH") || !strings.Contains(err.Error(), "openmpi-bin") {
		t.Errorf("Launch without mpirun: %v", err)
	}
	_, err = Launch(2, file, LaunchOptions{MPIRun: filepath.Join(t.TempDir(), "mpirun")})
	if !errors.Is(err, ErrNoMPI) || !strings.Contains(err.Error(), "mpirun") {
		t.Errorf("Launch with a missing launcher: %v", err)
	}
}
