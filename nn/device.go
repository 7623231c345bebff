package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// To moves the module's parameters (and their gradients) to device ("cpu",
// "cuda", "cuda:1", "meta"), in place, as torch.nn.Module.to(device): the
// parameter tensors keep their identity, so an optimizer built before or
// after To updates the moved ones. Layers build their per-graph constants
// (degree norms, masks) on their input's device, so after model.To("cuda")
// the model runs on inputs on "cuda". It returns an error naming the
// parameter when a copy fails (an unknown device, CUDA unavailable, out of
// memory); parameters moved before it stay moved.
func (c *core) To(device string) error { return moveTo(c.NamedParameters(), device) }

// moveTo moves the parameters np to device (To).
func moveTo(np []NamedParameter, device string) error {
	for _, p := range np {
		if err := p.Param.MoveTo(device); err != nil {
			return fmt.Errorf("nn: To(%q): parameter %s: %w", device, p.Name, err)
		}
	}
	return nil
}

// Device returns the device of the module's first parameter ("cpu" for a
// module without parameters).
func (c *core) Device() string { return firstDevice(c.NamedParameters()) }

// firstDevice returns the device of np's first parameter, "cpu" for none.
func firstDevice(np []NamedParameter) string {
	if len(np) > 0 {
		return np[0].Param.Device()
	}
	return "cpu"
}

// onDevice returns t (a constant or ids, usually made on the CPU) on
// device: t itself when it is there, else a copy. A failed copy panics
// with the device's error.
func onDevice(t *tensor.Tensor, device string) *tensor.Tensor {
	if device == "" || t.Device() == device {
		return t
	}
	out, err := t.To(device)
	if err != nil {
		panic(err)
	}
	return out
}
