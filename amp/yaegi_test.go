package amp

import (
	"reflect"
	"testing"

	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestInterpreted drives autocast and the GradScaler from the yaegi
// interpreter, as a session user types it: an interpreted closure passed to
// Autocast, the Enable / Restore pair across statements, the options
// struct, and a scaler stepping a compiled optimizer through the
// optim.Optimizer interface (the real symbol tables are generated in
// builtins; this hand-made one holds the names the script uses).
func TestInterpreted(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(interp.Exports{
		"github.com/gnnrepl/gnnrepl/tensor/tensor": {
			"Tensor":      reflect.ValueOf((*tensor.Tensor)(nil)),
			"FromFloat32": reflect.ValueOf(tensor.FromFloat32),
			"MatMul":      reflect.ValueOf(tensor.MatMul),
			"Mul":         reflect.ValueOf(tensor.Mul),
			"Sum":         reflect.ValueOf(tensor.Sum),
			"BFloat16":    reflect.ValueOf(tensor.BFloat16),
			"Float16":     reflect.ValueOf(tensor.Float16),
		},
		"github.com/gnnrepl/gnnrepl/optim/optim": {
			"Optimizer":  reflect.ValueOf((*optim.Optimizer)(nil)),
			"SGDOptions": reflect.ValueOf((*optim.SGDOptions)(nil)),
			"NewSGD":     reflect.ValueOf(optim.NewSGD),
		},
		"github.com/gnnrepl/gnnrepl/amp/amp": {
			"Autocast":          reflect.ValueOf(Autocast),
			"Enable":            reflect.ValueOf(Enable),
			"Restore":           reflect.ValueOf(Restore),
			"IsEnabled":         reflect.ValueOf(IsEnabled),
			"State":             reflect.ValueOf((*State)(nil)),
			"GradScaler":        reflect.ValueOf((*GradScaler)(nil)),
			"GradScalerOptions": reflect.ValueOf((*GradScalerOptions)(nil)),
			"NewGradScaler":     reflect.ValueOf(NewGradScaler),
		},
	}); err != nil {
		t.Fatal(err)
	}
	const imports = `
import (
	"github.com/gnnrepl/gnnrepl/amp"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)`
	const src = `
w := tensor.FromFloat32([]float32{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
x := tensor.FromFloat32([]float32{1, 0, 0, 1}, 2, 2)
opt := optim.NewSGD([]*tensor.Tensor{w}, optim.SGDOptions{LR: 0.5})
scaler := amp.NewGradScaler(amp.GradScalerOptions{InitScale: 1024})

var loss *tensor.Tensor
dtypes := ""
amp.Autocast(tensor.Float16, func() {
	y := tensor.MatMul(x, w)
	dtypes += y.DType().String()
	loss = tensor.Sum(tensor.Mul(y, y))
	dtypes += " " + loss.DType().String()
})
scaler.Scale(loss).Backward()
skipped := scaler.Step(opt)
scaler.Update()

prev := amp.Enable(tensor.BFloat16)
inside := amp.IsEnabled() && tensor.MatMul(x, w).DType() == tensor.BFloat16
amp.Restore(prev)
`
	for _, cell := range []string{imports, src} { // a session's cells
		if _, err := i.Eval(cell); err != nil {
			t.Fatal(err)
		}
	}
	get := func(name string) reflect.Value {
		v, err := i.Eval(name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if d := get("dtypes").String(); d != "float16 float32" {
		t.Errorf("dtypes in the region: %q", d)
	}
	if get("skipped").Bool() || !get("inside").Bool() || IsEnabled() {
		t.Errorf("skipped %v, inside %v, enabled after %v", get("skipped"), get("inside"), IsEnabled())
	}
	// loss = sum(w^2) (x is the identity), so w -= 0.5 * 2w = 0.
	w := get("w").Interface().(*tensor.Tensor)
	for _, v := range w.Float32s() {
		if v != 0 {
			t.Fatalf("w after the step: %v", w)
		}
	}
}
