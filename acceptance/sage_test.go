package acceptance

import (
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"os"
	"path/filepath"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
)

// sharedData returns the shared data folder (internal/shareddata) as an
// absolute path, skipping the test when Cora is not in it.
func sharedData(t testing.TB) string {
	t.Helper()
	dir := shareddata.Dir(t)
	if _, err := os.Stat(filepath.Join(dir, "cora")); err != nil {
		t.Skipf("shared data not found at %s", dir)
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

// TestSAGEDataLoader: GraphSAGE-mean trained through the DataLoader with
// fanouts [15, 10] reaches at least 0.79 mean test accuracy on Cora over
// seeds 0, 1, 2, and the result does not depend on NumWorkers.
func TestSAGEDataLoader(t *testing.T) {
	ds, err := datasets.LoadPlanetoid("cora", sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for seed := int64(0); seed < 3; seed++ {
		acc, err := TrainSAGE(ds, seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: GraphSAGE via DataLoader, Cora test accuracy %.4f", seed, acc)
		sum += acc
		if seed == 0 {
			acc2, err := TrainSAGE(ds, seed, 2)
			if err != nil || acc2 != acc {
				t.Errorf("NumWorkers 2 gave %.4f (%v), NumWorkers 0 gave %.4f", acc2, err, acc)
			}
		}
	}
	if mean := sum / 3; mean < 0.79 {
		t.Errorf("mean test accuracy %.4f < 0.79", mean)
	} else {
		t.Logf("mean test accuracy %.4f", mean)
	}
}
