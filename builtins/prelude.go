package builtins

// Prelude is the Go source a session evaluates before the first cell: the
// imports every session has and, once the engine packages exist, the
// preloaded g (a graph), sampler, model and opt. It is evaluated like a cell,
// so it may mix imports, declarations and statements.
//
// TODO(lead): import nn and optim when they land, and preload g, sampler,
// model and opt, e.g.
//
//	g, err := datasets.Planetoid("cora", "")
//	sampler := sampling.NeighborSampler{Fanouts: []int{15, 10}}
//	model := nn.NewGraphSAGE(...)
//	opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.01})
const Prelude = `import (
	"fmt"
	"math"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/profile"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)
`
