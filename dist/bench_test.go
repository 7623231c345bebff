package dist

import (
	"path/filepath"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
)

// BenchmarkPartitionFacebook partitions Facebook page-page (22,470 nodes,
// 342,004 directed edges) into 4 parts with METIS and at random and reports
// the edge cut fraction of each (the METIS-vs-random benchmark).
func BenchmarkPartitionFacebook(b *testing.B) {
	if _, err := METISAvailable(); err != nil {
		b.Skip(err)
	}
	ds, err := datasets.FacebookPagePage(filepath.Join(shareddata.Dir(b), "facebook-page-page"))
	if err != nil {
		b.Fatal(err)
	}
	for _, method := range []string{"metis", "random"} {
		b.Run(method, func(b *testing.B) {
			var p *Partitioning
			for b.Loop() {
				if p, err = Partition(ds.Graph, PartitionOptions{NumParts: 4, PartMethod: method, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.EdgeCut)/float64(ds.Graph.NumEdges()), "cut/edge")
			b.ReportMetric(p.NodeBalance, "balance")
		})
	}
}
