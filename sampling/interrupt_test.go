package sampling

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/gnnrepl/gnnrepl/runctx"
)

// TestLoaderOnInterrupt: after an interrupt mid-epoch, between two calls
// of Next (the cell stopped in its loop body) or inside one (Next returned
// false with the context's error), the next Next starts the following
// epoch ("restart", the default) or hands out the batch after the last one
// handed out ("resume"), for every NumWorkers.
func TestLoaderOnInterrupt(t *testing.T) {
	g := powerLaw(t, 500, 4000, 3)
	seeds := rangeIDs(0, 200)
	s := NeighborSampler{Fanouts: []int{3, 3}}
	for _, nw := range []int{0, 2} {
		o := LoaderOptions{BatchSize: 32, Shuffle: true, NumWorkers: nw, Seed: 4}
		ref := newLoader(t, g, seeds, s, o)
		want := [][]batch{epoch(t, ref), epoch(t, ref)}
		for _, policy := range []string{"", "restart", "resume"} {
			for _, inside := range []bool{false, true} {
				o.OnInterrupt = policy
				dl := newLoader(t, g, seeds, s, o)
				for i := 0; i < 3; i++ {
					if !dl.Next() {
						t.Fatal(dl.Err())
					}
				}
				if inside {
					ctx, cancel := context.WithCancel(context.Background())
					restore := runctx.Set(ctx)
					cancel()
					runctx.CancelSession()
					if dl.Next() || !errors.Is(dl.Err(), context.Canceled) {
						t.Fatalf("Next under a cancelled context: true or Err %v", dl.Err())
					}
					restore()
				} else {
					runctx.CancelSession() // the session was interrupted between two calls
				}
				if !dl.Next() {
					t.Fatalf("after the interrupt: %v", dl.Err())
				}
				wantEpoch, wantBatch := 1, want[1][0]
				if policy == "resume" {
					wantEpoch, wantBatch = 0, want[0][3]
				}
				if dl.Epoch() != wantEpoch || !reflect.DeepEqual(snapshot(dl), wantBatch) {
					t.Errorf("NumWorkers %d, OnInterrupt %q, inside Next %v: epoch %d, batch %v; want epoch %d, batch %v",
						nw, policy, inside, dl.Epoch(), snapshot(dl).out[:4], wantEpoch, wantBatch.out[:4])
				}
				// The rest of that epoch follows, then the next.
				n := 1
				for dl.Next() {
					n++
				}
				if left := len(want[0]) - 3; policy == "resume" && n != left || policy != "resume" && n != len(want[1]) {
					t.Errorf("NumWorkers %d, OnInterrupt %q: %d batches after the interrupt", nw, policy, n)
				}
			}
		}
	}
	if _, err := NewDataLoader(g, nil, s, LoaderOptions{OnInterrupt: "skip"}); err == nil {
		t.Error("nil seeds accepted")
	}
	if _, err := newDataLoader("x", g, seeds, s, LoaderOptions{OnInterrupt: "skip"}, nil); !errors.Is(err, ErrArgument) {
		t.Errorf("OnInterrupt \"skip\": %v", err)
	}
}
