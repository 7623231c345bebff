package repl

import (
	"errors"
	"testing"
	"time"
)

// TestLoaderAfterInterruptedCell: a cell stopped in the body of its
// DataLoader loop leaves the epoch half done; the next cell's Next starts
// the next epoch (the default OnInterrupt "restart") or the batch after the
// last one handed out ("resume"), never the rest of the epoch unasked.
func TestLoaderAfterInterruptedCell(t *testing.T) {
	for _, c := range []struct{ policy, want string }{{"", "1 1"}, {"resume", "0 4"}} {
		s, _, _ := newSession(t)
		eval(t, s, `import (
	"example.com/testpkg"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)`)
		eval(t, s, `src, dst := []int64{}, []int64{}
for i := int64(0); i < 100; i++ {
	src, dst = append(src, i), append(dst, (i*7+1)%100)
}
g, _ := graph.New(100, src, dst)
loader, err := sampling.NewDataLoader(g, tensor.FromInt64(src), sampling.NeighborSampler{Fanouts: []int{2}},
	sampling.LoaderOptions{BatchSize: 10, Shuffle: true, NumWorkers: 2, OnInterrupt: "`+c.policy+`"})
err`)
		marks.Store(0)
		_, err := evalCancelled(t, s, "n := 0\nfor loader.Next() {\n\tn++\n\tif n == 3 {\n\t\ttestpkg.Mark()\n\t\tfor {\n\t\t}\n\t}\n}", func() {
			for marks.Load() == 0 {
				time.Sleep(time.Millisecond)
			}
		})
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("err = %v", err)
		}
		// The third batch (index 2) was handed out when the cell stopped.
		if got := eval(t, s, "loader.Next()\nfmt.Sprint(loader.Epoch(), loader.StateDict()[\"batch\"])"); got != `"`+c.want+`"` {
			t.Errorf("OnInterrupt %q: epoch and batches handed out after the next Next = %s, want %s", c.policy, got, c.want)
		}
	}
}
