// Package optim holds gnnrepl's optimizers, following torch.optim: SGD
// (momentum, dampening, Nesterov, weight decay), Adam (L2 weight decay,
// AMSGrad) and AdamW (decoupled weight decay, Loshchilov & Hutter 2019),
// and SparseAdam (DGL's dgl.optim.SparseAdam: Adam on the rows of embedding
// tables that a step looked up, for SparseParam tables such as a sparse
// nn.Embedding; it keeps no state dict yet).
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
// Learning-rate schedulers follow torch.optim.lr_scheduler (1.13): StepLR,
// MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR (warmup),
// OneCycleLR (LRScheduler: Step once per epoch, or per batch for
// OneCycleLR, after the optimizer's Step) and ReduceLROnPlateau (Step takes
// the epoch's metric); SequentialLR runs schedulers one after another at
// milestones (a warmup, then a decay). Constructing one performs its first step, as in
// torch; each keeps per-group base learning rates, LastLR (get_last_lr)
// and LastEpoch (last_epoch), and saves its state as a map of plain values
// (StateDict, LoadStateDict). The sequences agree with torch 1.13's to
// float64 rounding (testdata/schedulers.json, made by schedulers.py).
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
