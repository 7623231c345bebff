// Package amp is gnnrepl's automatic mixed precision: autocast regions
// (torch.autocast) and loss scaling (torch.amp.GradScaler), following
// PyTorch's "Automatic Mixed Precision" package and Micikevicius et al.,
// "Mixed Precision Training" (ICLR 2018).
//
// Autocast runs a function with autocast on: inside it, the tensor ops
// cast their inputs as PyTorch's autocast op lists say. Matrix products,
// linear layers and DGL-style message passing (tensor.MatMul, tensor.SpMM
// for copy_u / u_mul_e with sum, mean or max, tensor.SDDMM) take float16
// or bfloat16 operands, accumulate in float32 and return the low dtype;
// reductions, softmax, edge softmax, normalisation and losses run in
// float32; elementwise ops promote mixed dtypes (bfloat16 + float32 ->
// float32). Parameters stay float32: a cast is recorded by autograd, so
// their gradients arrive in float32. The activations kept for the backward
// pass are float16 or bfloat16, which is where the memory goes.
//
//	amp.Autocast(tensor.BFloat16, func() {
//		loss = nn.MaskedCrossEntropy(model.Forward(g, feat), labels, trainIdx)
//	})
//	loss.Backward()
//
// Enable and Restore do the same for code that cannot use a closure (a
// notebook cell that opens a region and a later one that closes it).
// Regions nest. The state is process-wide (one per session), as Go has no
// goroutine-local storage: work started on other goroutines while a region
// is open runs under it too. Backward runs with autocast off, as in
// PyTorch.
//
// GradScaler implements dynamic loss scaling for float16, whose gradients
// underflow below 2^-24 (bfloat16 has float32's range and needs no
// scaling): the loss is multiplied by a large factor S before Backward, the
// gradients are divided by S before the optimizer step, and a step whose
// gradients hold an Inf or NaN is skipped and S reduced.
//
//	scaler := amp.NewGradScaler(amp.GradScalerOptions{})
//	for epoch := 0; epoch < 200; epoch++ {
//		opt.ZeroGrad()
//		var loss *tensor.Tensor
//		amp.Autocast(tensor.Float16, func() { loss = lossOf(model) })
//		scaler.Scale(loss).Backward()
//		scaler.Unscale(opt)                                   // optional: clip here
//		nn.ClipGradNorm(model.Parameters(), 1.0)
//		skipped := scaler.Step(opt)
//		scaler.Update()
//	}
//
// Error policy (the engine's, see package tensor): misuse in a function
// without an error result panics with an *amp.Error (the engine's one type,
// tensor.Error) naming the method: Unscale or Step twice before Update, or
// Update without a step (ErrState); an invalid option, including in
// NewGradScaler, which has no error result (ErrOption, which is
// tensor.ErrArgument); gradients that are not float32 (tensor.ErrDType).
// LoadStateDict returns an error, since its input is data. The session and
// kernel front ends recover panics.
package amp
