// Package optim holds gnnrepl's optimizers, following torch.optim: SGD
// (momentum, dampening, Nesterov, weight decay), Adam (L2 weight decay,
// AMSGrad) and AdamW (decoupled weight decay, Loshchilov & Hutter 2019).
//
// An optimizer holds parameter groups (torch's param_groups): lists of
// parameters sharing a learning rate and a weight decay, which can be
// changed between steps (learning-rate schedules). Step updates every
// parameter that has a gradient in place, in compiled loops over the
// float32 elements; it builds no autograd history. ZeroGrad clears the
// gradients (set to none, PyTorch's default). The per-parameter state
// (momentum buffers, Adam's moments and step counts) can be saved and
// restored with StateDict and LoadStateDict, with torch's key names.
//
// The arithmetic follows PyTorch's single-tensor implementations
// (torch/optim/sgd.py, adam.py, adamw.py): scalars such as the bias
// corrections are computed in float64 and applied in float32, so a step
// agrees with torch's to float32 rounding (tested against torch 1.13).
//
// Error policy (the engine's, see package tensor): misuse in a function
// without an error result panics with an *optim.Error (the engine's one
// type, tensor.Error) naming the option or parameter: an invalid option, a
// parameter in two groups, a nil, non-float32 or non-leaf parameter (kind
// ErrOption, which is tensor.ErrArgument), a gradient whose shape or dtype
// differs from its parameter's (tensor.ErrShape). The constructors (NewSGD,
// NewAdam, NewAdamW) have no error result and panic so. LoadStateDict
// returns an error of kind ErrState, since its input is data.
package optim
