package sampling

import (
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestLoaderShard: the shards of an epoch have the same number of batches,
// are disjoint when the seeds divide evenly, cover every seed, and follow
// the single-process shuffle of the same Seed and epoch.
func TestLoaderShard(t *testing.T) {
	g := powerLaw(t, 300, 1200, 3)
	ids := make([]int64, 0, 103)
	for i := range 103 {
		ids = append(ids, int64(2*i))
	}
	seeds := tensor.FromInt64(ids, len(ids))
	s := NeighborSampler{Fanouts: []int{2}}
	epochSeeds := func(opts LoaderOptions, epoch int) ([]int64, int) {
		dl, err := NewDataLoader(g, seeds, s, opts)
		if err != nil {
			t.Fatal(err)
		}
		dl.SetEpoch(epoch)
		var out []int64
		for dl.Next() {
			out = append(out, dl.OutputNodes().Int64s()...)
		}
		if err := dl.Err(); err != nil {
			t.Fatal(err)
		}
		return out, dl.Len()
	}
	for _, dropLast := range []bool{false, true} {
		base := LoaderOptions{BatchSize: 8, Shuffle: true, Seed: 5, DropLast: dropLast}
		whole, _ := epochSeeds(LoaderOptions{BatchSize: 1 << 10, Shuffle: true, Seed: 5}, 2)
		for _, k := range []int{2, 4} {
			var all []int64
			lens := map[int]bool{}
			for r := range k {
				o := base
				o.Shard = Shard{Rank: r, Size: k}
				got, n := epochSeeds(o, 2)
				lens[n] = true
				all = append(all, got...)
			}
			if len(lens) != 1 {
				t.Errorf("k=%d dropLast=%v: ranks have different batch counts %v", k, dropLast, lens)
			}
			per := (103 + k - 1) / k
			if dropLast {
				per = 103 / k
				per -= per % 8
			}
			if len(all) != k*per {
				t.Errorf("k=%d dropLast=%v: %d seeds over the shards, want %d", k, dropLast, len(all), k*per)
			}
			if !dropLast {
				// The shards in rank order are the shuffled list, padded with its head.
				if !slices.Equal(all[:103], whole) || !slices.Equal(all[103:], whole[:len(all)-103]) {
					t.Errorf("k=%d: shards are not the epoch's shuffle in order", k)
				}
			}
		}
	}
	if _, err := NewDataLoader(g, seeds, s, LoaderOptions{Shard: Shard{Rank: 2, Size: 2}}); err == nil {
		t.Error("Shard{Rank: 2, Size: 2} accepted")
	}
}
