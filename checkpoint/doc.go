// Package checkpoint saves and restores a whole training state in one
// safetensors file, so that nothing is lost to a crash, a restart or an
// interrupted cell, and so that PyTorch and the safetensors ecosystem
// read the weights (torch.save / torch.load of a checkpoint dict, with
// safetensors as the format).
//
//	st := checkpoint.State{Model: model, Optimizer: opt, Scheduler: sched,
//		Scaler: scaler, Loader: loader, Meta: map[string]string{"epoch": "3"}}
//	err := checkpoint.Save("run.safetensors", st)
//	...
//	// later, in a fresh session, with objects built as before:
//	err = checkpoint.Load("run.safetensors", &st)
//
// Save writes the model's parameters under their DGL state_dict names in
// torch's layout, the optimizer's state under "optimizer." and the
// GradScaler's under "scaler." as tensors, and everything else (exact
// learning rates, the scheduler, the DataLoader's position within its
// epoch, the random generators' states, user metadata) in the file's
// "__metadata__". The write is atomic: a temporary file in the same
// directory, fsync, rename, fsync of the directory. Load checks the whole
// file (a truncated or corrupt file is an ErrFormat error naming the file
// and the fault) and the whole state (a parameter of another shape is an
// ErrState error naming it) before changing anything, and then restores
// everything, so that training continues bit-identically to a run that was
// never interrupted, mid-epoch included.
//
// SaveFile and LoadFile read and write plain safetensors files
// (safetensors.torch.save_file and load_file); Load also takes such a file
// for the model alone, a state dict saved by PyTorch from a DGL model with
// the same layers.
//
// In PyTorch:
//
//	from safetensors.torch import load_file
//	from safetensors import safe_open
//	sd = load_file("run.safetensors")
//	model.load_state_dict({k: v for k, v in sd.items()
//	                       if not k.startswith(("optimizer.", "scaler."))})
//	meta = safe_open("run.safetensors", "pt").metadata()
//	state = json.loads(meta["gnnrepl"])  # scheduler, loader, rng, ...
//
// The optimizer's state tensors keep gnnrepl's parameter order and layout
// (Linear moments are (in, out)); they are for resuming in gnnrepl, not
// for torch.optim.
package checkpoint
