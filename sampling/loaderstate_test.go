package sampling

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestLoaderStateDictResumes stops a loader mid-epoch, restores its state
// dict (through JSON, as a checkpoint stores it) into a new loader and
// checks the new one hands out exactly the batches the first would have.
func TestLoaderStateDictResumes(t *testing.T) {
	g := powerLaw(t, 2000, 20000, 5)
	seeds := rangeIDs(0, 700)
	s := NeighborSampler{Fanouts: []int{4, 6}}
	for _, nw := range []int{0, 2} {
		o := LoaderOptions{BatchSize: 64, Shuffle: true, NumWorkers: nw, Seed: 9}
		ref := newLoader(t, g, seeds, s, o)
		var want []batch
		for e := 0; e < 2; e++ {
			want = append(want, epoch(t, ref)...)
		}
		n := ref.Len() // 11
		for _, stop := range []int{0, 3, n, n + 4} {
			dl := newLoader(t, g, seeds, s, o)
			for i := 0; i < stop; i++ {
				if i == n { // the end of epoch 0
					if dl.Next() {
						t.Fatal("epoch 0 has more batches than Len")
					}
				}
				if !dl.Next() {
					t.Fatalf("batch %d: %v", i, dl.Err())
				}
			}
			js, err := json.Marshal(dl.StateDict())
			if err != nil {
				t.Fatal(err)
			}
			var sd map[string]any
			if err := json.Unmarshal(js, &sd); err != nil {
				t.Fatal(err)
			}
			re := newLoader(t, g, seeds, s, o)
			re.Next() // a position of its own, which LoadStateDict abandons
			if err := re.LoadStateDict(sd); err != nil {
				t.Fatal(err)
			}
			var got []batch
			for len(got)+stop < 2*n {
				for re.Next() {
					got = append(got, snapshot(re))
				}
				if err := re.Err(); err != nil {
					t.Fatal(err)
				}
			}
			if len(got) != 2*n-stop {
				t.Fatalf("NumWorkers %d, stop %d: %d batches after resuming, want %d", nw, stop, len(got), 2*n-stop)
			}
			for i := range got {
				if fmt.Sprint(got[i]) != fmt.Sprint(want[stop+i]) {
					t.Fatalf("NumWorkers %d, stop %d: batch %d after resuming differs", nw, stop, i)
				}
			}
		}
	}
}

func TestLoaderLoadStateDictErrors(t *testing.T) {
	g := powerLaw(t, 200, 1000, 5)
	s := NeighborSampler{Fanouts: []int{2}}
	dl := newLoader(t, g, rangeIDs(0, 100), s, LoaderOptions{BatchSize: 10, Seed: 1})
	good := dl.StateDict()
	dl.Next()
	for name, edit := range map[string]func(map[string]any){
		"seed":       func(m map[string]any) { m["seed"] = int64(2) },
		"batch_size": func(m map[string]any) { m["batch_size"] = 11 },
		"batch":      func(m map[string]any) { m["batch"] = 11 },
		"fraction":   func(m map[string]any) { m["epoch"] = 1.5 },
		"shuffle":    func(m map[string]any) { m["shuffle"] = "yes" },
		"extra":      func(m map[string]any) { m["extra"] = 1 },
	} {
		sd := map[string]any{}
		for k, v := range good {
			sd[k] = v
		}
		edit(sd)
		if err := dl.LoadStateDict(sd); !errors.Is(err, ErrArgument) {
			t.Errorf("%s: %v, want ErrArgument", name, err)
		}
		if dl.BatchIndex() != 0 {
			t.Errorf("%s: a failed LoadStateDict moved the loader", name)
		}
	}
}
