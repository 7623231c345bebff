package builtins

// Prelude is the Go source a session evaluates before the first cell: the
// imports every session has and the preloaded variables
//
//	ds       the dataset (Cora from the data directory, or a synthetic graph of
//	         Cora's shape with a one-line notice when the files are absent,
//	         written to the session's stderr, which log.Writer() is in the
//	         interpreter; repl.Session.PreludeNotices keeps it)
//	g        ds.Graph, with node data feat, label, train_mask, val_mask, test_mask
//	sampler  a NeighborSampler with fanouts [15, 10]
//	model    a 2-layer GraphSAGE (mean aggregator) sized to g
//	opt      Adam over model's parameters (lr 0.01, weight decay 5e-4)
//
// It is evaluated like a cell, so it may mix imports, declarations and
// statements.
const Prelude = PreludeImports + preload

// PreludeImports is the import block of Prelude alone, for sessions that
// want the packages without the preloaded variables (tests of the session
// itself).
const PreludeImports = `import (
	"errors"
	"fmt"
	"log"
	"math"
	"os"
	"time"

	"github.com/gnnrepl/gnnrepl/amp"
	"github.com/gnnrepl/gnnrepl/builtins/display"
	"github.com/gnnrepl/gnnrepl/checkpoint"
	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/dist"
	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/graphstore"
	"github.com/gnnrepl/gnnrepl/memplan"
	"github.com/gnnrepl/gnnrepl/metrics"
	"github.com/gnnrepl/gnnrepl/must"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/profile"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)
`

const preload = `
ds := datasets.Preload("cora", log.Writer())
g := ds.Graph
sampler := sampling.NeighborSampler{Fanouts: []int{15, 10}}
model := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 64, OutFeats: ds.NumClasses, Dropout: 0.5, Seed: 0})
opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
`
