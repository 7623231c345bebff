package datasets

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// BenchmarkPowerLawProducts builds the full products-scale graph,
// ProductsLike(1, 1): 2,449,029 nodes, 61,859,140 edges, 100 features, 47
// classes. It runs only when -bench selects it (never under -short) and
// needs about 3 GB:
//
//	go test ./datasets -run XXX -bench PowerLawProducts -benchtime 1x -timeout 30m
//
// It reports the build time, the process's peak resident set (getrusage
// maxrss, so run it alone), the Go heap in use after the build and the
// bytes the tensor accounting counts (the node data).
func BenchmarkPowerLawProducts(b *testing.B) {
	if testing.Short() {
		b.Skip("products-scale benchmark skipped under -short")
	}
	var d *Dataset
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		d = nil
		runtime.GC()
		t0 := time.Now()
		var err error
		d, err = PowerLaw(ProductsLike(1, 1))
		if err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(t0)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/build")
	b.ReportMetric(float64(ru.Maxrss)/(1<<20), "GiB-maxrss")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<30), "GiB-heap-after")
	b.ReportMetric(float64(tensor.MemoryAllocated("cpu"))/(1<<30), "GiB-tensors")
	b.ReportMetric(float64(d.Graph.NumEdges()), "edges")
	runtime.KeepAlive(d)
}

// BenchmarkRMATProducts builds an R-MAT graph of about ogbn-products' size,
// Graph500Like(21, 1) with 30 edges per node (2,097,152 nodes, 62,914,560
// edges, 100 features, 47 classes), and its in-edge adjacency, reporting as
// BenchmarkPowerLawProducts does (run it alone for the resident set):
//
//	go test ./datasets -run XXX -bench RMATProducts -benchtime 1x -timeout 30m
func BenchmarkRMATProducts(b *testing.B) {
	if testing.Short() {
		b.Skip("products-scale benchmark skipped under -short")
	}
	o := Graph500Like(21, 1)
	o.EdgeFactor = 30
	var d *Dataset
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		d = nil
		runtime.GC()
		t0 := time.Now()
		var err error
		if d, err = RMAT(o); err != nil {
			b.Fatal(err)
		}
		d.Graph.Adj()
		elapsed += time.Since(t0)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/build")
	b.ReportMetric(float64(ru.Maxrss)/(1<<20), "GiB-maxrss")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<30), "GiB-heap-after")
	b.ReportMetric(float64(d.Graph.NumEdges()), "edges")
	runtime.KeepAlive(d)
}
