package datasets

import (
	"io"
	"testing"
)

// BenchmarkLoadPlanetoidRaw measures LoadPlanetoidRaw end to end from the
// shared data folder (read, sha256 of every file, unpickling, assembly of
// dense features and the sorted edge list). Bytes/op is the size of the
// eight files.
func BenchmarkLoadPlanetoidRaw(b *testing.B) {
	dir := sharedData(b)
	old := PlanetoidMirrors
	PlanetoidMirrors = nil // never download in a benchmark
	b.Cleanup(func() { PlanetoidMirrors = old })
	DownloadLog = io.Discard
	for _, name := range []string{"pubmed", "cora", "citeseer"} {
		b.Run(name, func(b *testing.B) {
			specs, _ := PlanetoidFiles(name)
			var total int64
			for _, s := range specs {
				total += s.Size
			}
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := LoadPlanetoidRaw(dir, name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRowNormalizePubMed measures RowNormalize on PubMed's (19717, 500)
// features.
func BenchmarkRowNormalizePubMed(b *testing.B) {
	d, err := LoadPlanetoidRaw(sharedData(b), "pubmed")
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float32, len(d.Features))
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		copy(x, d.Features)
		RowNormalize(x, d.NumNodes, d.NumFeatures)
	}
}
