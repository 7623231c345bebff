package main

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
)

// powerLawGraph builds a directed Chung-Lu style graph of n nodes and m
// edges whose endpoints are drawn independently with probability
// proportional to w_i = (i+1)^-s, s = 1/(gamma-1) with gamma = 2.5 (degree
// distribution ~ k^-2.5, like web and co-purchase graphs), then relabelled by
// a random permutation so hubs are spread over the id range. Drawing is
// inverse-CDF of the continuous law, split over GOMAXPROCS goroutines with
// one PCG stream per chunk: the same (n, m, seed) give the same graph.
// The CSC is built before it returns.
func powerLawGraph(n, m int, seed uint64) (*graph.Graph, error) {
	const s = 1 / 1.5
	perm := rand.New(rand.NewPCG(seed, 99)).Perm(n)
	span := math.Pow(float64(n)+1, 1-s) - 1
	draw := func(r *rand.Rand) int64 {
		x := math.Pow(1+r.Float64()*span, 1/(1-s)) - 1
		i := int(x)
		if i >= n {
			i = n - 1
		}
		return int64(perm[i])
	}
	src, dst := make([]int64, m), make([]int64, m)
	const chunk = 1 << 20
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for lo := 0; lo < m; lo += chunk {
		wg.Add(1)
		sem <- struct{}{}
		go func(lo int) {
			defer func() { <-sem; wg.Done() }()
			r := rand.New(rand.NewPCG(seed, uint64(lo)))
			for e := lo; e < min(lo+chunk, m); e++ {
				src[e], dst[e] = draw(r), draw(r)
			}
		}(lo)
	}
	wg.Wait()
	g, err := graph.New(n, src, dst)
	if err != nil {
		return nil, err
	}
	g.Adj()
	return g, nil
}

// cpuSeconds is the process's user plus system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// samplerResult is what workload (c) measured.
type samplerResult struct {
	BuildSeconds    float64
	EdgesPerSec     float64 // total sampled edges / total wall time
	EdgesPerCPUSec  float64 // total sampled edges / process CPU time
	MedianBatchSecs float64
	EdgesPerBatch   float64
	HeapGiB         float64 // Go heap in use after building the graph
}

// samplerThroughput samples batches of batch random seeds of g with fanouts
// (NeighborSampler.SampleBlocks, which splits large layers over GOMAXPROCS
// goroutines) after warmup untimed batches.
func samplerThroughput(g *graph.Graph, fanouts []int, batch, warmup, batches int) samplerResult {
	n := g.NumNodes()
	r := rand.New(rand.NewPCG(5, 6))
	s := sampling.NeighborSampler{Fanouts: fanouts}
	seeds := make([]int64, batch)
	run := func(i int) int {
		for j := range seeds {
			seeds[j] = r.Int64N(int64(n))
		}
		blocks, err := s.SampleBlocks(g, seeds, uint64(i))
		if err != nil {
			panic(err)
		}
		e := 0
		for _, b := range blocks {
			e += b.NumEdges()
		}
		return e
	}
	for i := 0; i < warmup; i++ {
		run(-1 - i)
	}
	var res samplerResult
	ts := make([]float64, batches)
	total, wall, cpu0 := 0, 0.0, cpuSeconds()
	for i := range ts {
		t0 := time.Now()
		total += run(i)
		ts[i] = time.Since(t0).Seconds()
		wall += ts[i]
	}
	cpu := cpuSeconds() - cpu0
	res.EdgesPerSec = float64(total) / wall
	if cpu > 0 {
		res.EdgesPerCPUSec = float64(total) / cpu
	}
	res.MedianBatchSecs = median(ts)
	res.EdgesPerBatch = float64(total) / float64(batches)
	return res
}
