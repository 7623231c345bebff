// Package must shortens error handling in interactive cells. Each function
// takes the results of a call that returns (value, error), passed straight
// through as in must.Dataset(datasets.LoadPlanetoid("cora", "")), and
// returns the value when the error is nil; otherwise it panics with the
// error itself, which fails the cell (the session shows "panic: " and the
// error's text with the cell's line, and the variable is not assigned).
//
// The functions are not generic because the interpreter cannot call
// generic compiled code: there is one per common result type, and OK for
// a lone error or any other type (v, err := f(); must.OK(err)). In
// compiled programs, return the error instead.
package must

import (
	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// OK panics with err when it is not nil.
func OK(err error) {
	if err != nil {
		panic(err)
	}
}

// Dataset returns d, or panics with err when it is not nil
// (datasets.LoadPlanetoid, datasets.FacebookPagePage, ...).
func Dataset(d *datasets.Dataset, err error) *datasets.Dataset {
	OK(err)
	return d
}

// Graph returns g, or panics with err when it is not nil (graph.New,
// datasets.Planetoid, ...).
func Graph(g *graph.Graph, err error) *graph.Graph {
	OK(err)
	return g
}

// Tensor returns t, or panics with err when it is not nil.
func Tensor(t *tensor.Tensor, err error) *tensor.Tensor {
	OK(err)
	return t
}

// Bytes returns b, or panics with err when it is not nil (the PNG of
// display.LinePlot, os.ReadFile, ...).
func Bytes(b []byte, err error) []byte {
	OK(err)
	return b
}

// DataLoader returns l, or panics with err when it is not nil
// (sampling.NewDataLoader).
func DataLoader(l *sampling.DataLoader, err error) *sampling.DataLoader {
	OK(err)
	return l
}

// HeteroDataset returns d, or panics with err when it is not nil
// (datasets.LoadACM, LoadOGBNodePropHetero, SyntheticMAG).
func HeteroDataset(d *datasets.HeteroDataset, err error) *datasets.HeteroDataset {
	OK(err)
	return d
}

// RDFDataset returns d, or panics with err when it is not nil
// (datasets.LoadAIFB, LoadMUTAG).
func RDFDataset(d *datasets.RDFDataset, err error) *datasets.RDFDataset {
	OK(err)
	return d
}

// RecDataset returns d, or panics with err when it is not nil
// (datasets.LoadLastFM, LoadMovieLens100K).
func RecDataset(d *datasets.RecDataset, err error) *datasets.RecDataset {
	OK(err)
	return d
}

// LinkDataset returns d, or panics with err when it is not nil
// (datasets.LoadCaGrQc).
func LinkDataset(d *datasets.LinkDataset, err error) *datasets.LinkDataset {
	OK(err)
	return d
}

// HeteroDataLoader returns l, or panics with err when it is not nil
// (sampling.NewHeteroDataLoader).
func HeteroDataLoader(l *sampling.HeteroDataLoader, err error) *sampling.HeteroDataLoader {
	OK(err)
	return l
}

// PerType returns p, or panics with err when it is not nil
// (featstore.NewPerType, NewPerTypeStores, NewHotCachePerType).
func PerType(p *featstore.PerType, err error) *featstore.PerType {
	OK(err)
	return p
}
