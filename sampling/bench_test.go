package sampling

import (
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// benchGraphs are synthetic power-law graphs (see powerLaw), built once.
var benchGraphs = map[string]*struct {
	once  sync.Once
	g     *graph.Graph
	n, m  int
	seeds []int64
}{
	"100K-2M": {n: 100_000, m: 2_000_000},
	"1M-20M":  {n: 1_000_000, m: 20_000_000},
}

// cpuTime returns the process's user plus system CPU time. Reported as
// edges per CPU second beside edges per second, it is less disturbed by
// other programs sharing the machine than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportEdges(b *testing.B, edges int, cpu0 time.Duration) {
	b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "edges/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(edges)/cpu.Seconds(), "edges/cpu-s")
	}
}

func benchGraph(b *testing.B, name string) (*graph.Graph, []int64) {
	e := benchGraphs[name]
	e.once.Do(func() {
		e.g = powerLaw(b, e.n, e.m, 2024)
		e.g.Adj() // build the CSC outside the timings
		// Seeds: a fixed pseudo-random tenth of the nodes.
		st := stream{state: 7}
		for i := 0; i < e.n/10; i++ {
			e.seeds = append(e.seeds, st.intn(int64(e.n)))
		}
	})
	return e.g, e.seeds
}

// BenchmarkSampleBlocks measures NeighborSampler.SampleBlocks alone in one
// goroutine: fanouts [15, 10, 5], batches of 1024 seeds. The edges/s metric
// counts the sampled edges of all three blocks.
func BenchmarkSampleBlocks(b *testing.B) {
	for _, name := range []string{"100K-2M", "1M-20M"} {
		for _, s := range []NeighborSampler{
			{Fanouts: []int{15, 10, 5}},
			{Fanouts: []int{15, 10, 5}, Replace: true},
		} {
			b.Run(fmt.Sprintf("%s/replace=%v", name, s.Replace), func(b *testing.B) {
				g, seeds := benchGraph(b, name)
				benchHomo(b, g, seeds, s)
			})
		}
	}
}

// BenchmarkDataLoader measures batches through a DataLoader (shuffled seeds,
// fanouts [15, 10, 5], batch 1024, no feature gathering) with NumWorkers 0
// and 2; one benchmark iteration is one batch.
func BenchmarkDataLoader(b *testing.B) {
	for _, name := range []string{"100K-2M", "1M-20M"} {
		for _, nw := range []int{0, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, nw), func(b *testing.B) {
				g, seeds := benchGraph(b, name)
				dl, err := NewDataLoader(g, tensor.FromInt64(seeds), NeighborSampler{Fanouts: []int{15, 10, 5}},
					LoaderOptions{BatchSize: 1024, Shuffle: true, NumWorkers: nw, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				defer dl.Close()
				edges := 0
				b.ResetTimer()
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					if !dl.Next() {
						if dl.Err() != nil {
							b.Fatal(dl.Err())
						}
						i--
						continue
					}
					for _, blk := range dl.Blocks() {
						edges += blk.NumEdges()
					}
				}
				reportEdges(b, edges, cpu0)
			})
		}
	}
}
