package nn

import (
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Gradient checkpointing of layers (Chen, Xu, Zhang & Guestrin, "Training
// Deep Nets with Sublinear Memory Cost", 2016; torch.utils.checkpoint). A
// checkpointed layer keeps only its input and output between the forward
// and the backward pass; its aggregation results, pre-activations and
// dropout outputs are recomputed in the backward pass, with the same
// dropout masks (tensor.Checkpoint). GraphSAGE, GCN and GAT take a
// Checkpoint option that does this for every layer but the last; Checkpoint
// wraps any single layer or model.

var _ GraphModel = (*Checkpointed)(nil)

// Checkpointed runs a layer or model (anything with Forward(g, x), such as
// SAGEConv, GraphConv, GATConv or a whole GCN) under tensor.Checkpoint:
// Forward keeps only x and the result for the backward pass and recomputes
// the rest there, for one extra forward pass of the module per training
// step. Gradients equal those of the module run plainly. Its parameters,
// their names and the train / eval switch are the wrapped module's
// (torch.distributed.algorithms._checkpoint.checkpoint_wrapper, without the
// name prefix).
type Checkpointed struct {
	Module GraphModel
}

// Checkpoint wraps m so that its Forward is checkpointed. It panics with
// ErrOption when m is nil.
func Checkpoint(m GraphModel) *Checkpointed {
	if m == nil {
		panicf(ErrOption, "Checkpoint", "module is nil")
	}
	return &Checkpointed{Module: m}
}

// Forward computes the wrapped module's Forward(g, x) (same shapes and
// panics), recomputing its intermediate activations during Backward. The
// module must behave the same when run again: do not switch it between
// train and eval mode, or change it, between the forward and the backward
// pass (tensor.Checkpoint panics with tensor.ErrCheckpoint otherwise).
func (c *Checkpointed) Forward(g graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	return checkpointed(true, func(x *tensor.Tensor) *tensor.Tensor { return c.Module.Forward(g, x) }, x)
}

// Parameters returns the wrapped module's parameters.
func (c *Checkpointed) Parameters() []*tensor.Tensor { return c.Module.Parameters() }

// NamedParameters returns the wrapped module's parameters under its names.
func (c *Checkpointed) NamedParameters() []NamedParameter { return c.Module.NamedParameters() }

// Train switches the wrapped module to training mode.
func (c *Checkpointed) Train() { c.Module.Train() }

// Eval switches the wrapped module to evaluation mode.
func (c *Checkpointed) Eval() { c.Module.Eval() }

// Training reports whether the wrapped module is in training mode.
func (c *Checkpointed) Training() bool { return c.Module.Training() }

// ZeroGrad clears the gradients of the wrapped module's parameters.
func (c *Checkpointed) ZeroGrad() { c.Module.ZeroGrad() }

// String describes the wrapper and the wrapped module.
func (c *Checkpointed) String() string {
	if s, ok := c.Module.(interface{ String() string }); ok {
		return "Checkpoint(" + s.String() + ")"
	}
	return "Checkpoint(<module>)"
}

// checkpointed returns f(x), under tensor.Checkpoint when on.
func checkpointed(on bool, f func(*tensor.Tensor) *tensor.Tensor, x *tensor.Tensor) *tensor.Tensor {
	if !on {
		return f(x)
	}
	return tensor.Checkpoint(func(in []*tensor.Tensor) []*tensor.Tensor {
		return []*tensor.Tensor{f(in[0])}
	}, x)[0]
}
