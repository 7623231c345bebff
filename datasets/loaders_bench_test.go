package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

func benchFile(b *testing.B, path string) {
	st, err := os.Stat(path)
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
}

// BenchmarkSNAPEmailEnron measures SNAP on email-Enron (1.05 MB gzip,
// 367,662 edges) up to the graph; bytes/op is the gzip file's size.
func BenchmarkSNAPEmailEnron(b *testing.B) {
	path := filepath.Join(sharedData(b), "snap-email-enron", "email-Enron.txt.gz")
	benchFile(b, path)
	for b.Loop() {
		if _, err := SNAP(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGNNBenchmarkNPZ measures GNNBenchmarkNPZ on cora.npz and
// citeseer.npz (dense features, symmetrised graph, default split).
func BenchmarkGNNBenchmarkNPZ(b *testing.B) {
	for _, name := range []string{"cora", "citeseer"} {
		b.Run(name, func(b *testing.B) {
			path := filepath.Join(sharedData(b), "gnnbench-npz", name+".npz")
			benchFile(b, path)
			for b.Loop() {
				if _, err := GNNBenchmarkNPZ(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFacebookPagePage measures FacebookPagePage (the three files,
// 5.1 MB, to a dataset with dense (22470, 4714) features) and
// ReadFacebookPagePage (the files only).
func BenchmarkFacebookPagePage(b *testing.B) {
	dir := filepath.Join(sharedData(b), "facebook-page-page")
	var total int64
	for _, f := range []string{FacebookEdgesFile, FacebookFeaturesFile, FacebookTargetFile} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			b.Skip(err)
		}
		total += st.Size()
	}
	b.Run("raw", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			if _, err := ReadFacebookPagePage(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("dataset", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			if _, err := FacebookPagePage(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkOGBNodeProp measures OGBNodeProp on a generated dataset in the
// OGB raw layout with 20,000 nodes, 200,000 edges (added both ways) and 100
// float features per node (ogbn-products' shape at 1/120 scale); bytes/op
// is the size of the gzipped files.
func BenchmarkOGBNodeProp(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "ogbn_products")
	writeOGBSynthetic(b, dir, 20000, 200000, 100)
	var total int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return nil
	})
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d, err := OGBNodeProp(dir)
		if err != nil {
			b.Fatal(err)
		}
		if d.Graph.NumEdges() != 400000 {
			b.Fatalf("%d edges", d.Graph.NumEdges())
		}
	}
}
