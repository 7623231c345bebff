package tensor

import "github.com/gnnrepl/gnnrepl/internal/engerr"

// MoveTo moves the leaf tensor t to device in place: t keeps its identity
// (pointers to it stay valid) and its data becomes a copy on device, as
// torch.nn.Module.to does for each parameter (param.data =
// param.data.to(device)). A gradient t holds moves with it. Modules'
// To(device) (package nn) calls it for every parameter, so an optimizer
// made before or after sees the moved tensors.
//
// It returns an error wrapping ErrDevice for an unknown device or a failed
// copy, and one wrapping ErrArgument when t has autograd history (an op's
// result: move its inputs instead, or Detach it first).
func (t *Tensor) MoveTo(device string) error {
	if t == nil {
		return engerr.New(ErrArgument, "tensor", "MoveTo", "the tensor is nil")
	}
	if t.node != nil {
		return engerr.New(ErrArgument, "tensor", "MoveTo", "the tensor is the result of an op (it has autograd history); move a leaf, or Detach it first")
	}
	_, name, err := parseDevice(device)
	if err != nil {
		return err
	}
	if name == t.st.device {
		return nil
	}
	var moved, grad *Tensor
	if err := Catch(func() {
		moved = copyTo(t, name)
		if t.grad != nil {
			grad = copyTo(t.grad, name)
		}
	}); err != nil {
		return err
	}
	t.st, t.off = moved.st, moved.off
	t.grad = grad
	return nil
}

// ScaleInPlace does t *= alpha in place, outside autograd
// (torch.Tensor.mul_(alpha)): momentum decay and gradient clipping on t's
// device. Float32. Kernels: cpu_step.go, cuda_step.go (kernels.ScaleF32).
func (t *Tensor) ScaleInPlace(alpha float32) {
	defer hookOp("ScaleInPlace")()
	const op = "ScaleInPlace"
	be := backendOf(op, t)
	checkFloat(op, t)
	be.Scale(t, alpha)
}

// SetMetaDensity records on the meta tensor t the fraction of nonzero
// elements in the data it stands for (0 < density <= 1), so that code
// choosing a sparse path from the values (nn's bag-of-words input
// features) chooses it on meta tensors too; gathers of its rows (the
// DataLoader's) carry it on. It panics with ErrDevice when t is not on a
// meta device and with ErrArgument for a density outside (0, 1].
func (t *Tensor) SetMetaDensity(density float64) {
	if !isMeta(t) {
		panicf(ErrDevice, "SetMetaDensity", "the tensor is on %s; only a meta tensor stands for data it does not hold", t.st.device)
	}
	if !(density > 0 && density <= 1) {
		panicf(ErrArgument, "SetMetaDensity", "density %g is outside (0, 1]", density)
	}
	t.st.density = density
}

// MetaDensity returns the density recorded by SetMetaDensity, or 0 when
// none was (or t is not a meta tensor).
func (t *Tensor) MetaDensity() float64 { return t.st.density }

// IsMeta reports whether t is on a meta device ("meta" or "meta:cuda"):
// it has a shape and a dtype and no values.
func (t *Tensor) IsMeta() bool { return isMeta(t) }
