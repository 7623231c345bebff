package tensor_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestMethods checks that every method form in methods.go returns what its
// package function returns (shape, dtype and values), and that the table
// below covers every method the file declares.
func TestMethods(t *testing.T) {
	gen := tensor.NewGenerator(7)
	x := tensor.Rand(gen, 0.5, 2, 3, 4) // positive: Log, Sqrt, Pow are defined
	y := tensor.Rand(gen, 0.5, 2, 3, 4)
	w := tensor.Rand(gen, -1, 1, 4, 2)
	idx := tensor.FromInt64([]int64{2, 0, 2})
	cases := map[string][2]*tensor.Tensor{
		"MatMul":      {x.MatMul(w), tensor.MatMul(x, w)},
		"Add":         {x.Add(y), tensor.Add(x, y)},
		"Sub":         {x.Sub(y), tensor.Sub(x, y)},
		"Mul":         {x.Mul(y), tensor.Mul(x, y)},
		"Div":         {x.Div(y), tensor.Div(x, y)},
		"AddScalar":   {x.AddScalar(1.5), tensor.AddScalar(x, 1.5)},
		"MulScalar":   {x.MulScalar(-3), tensor.MulScalar(x, -3)},
		"Neg":         {x.Neg(), tensor.Neg(x)},
		"ReLU":        {w.ReLU(), tensor.ReLU(w)},
		"Sigmoid":     {w.Sigmoid(), tensor.Sigmoid(w)},
		"Tanh":        {w.Tanh(), tensor.Tanh(w)},
		"Exp":         {x.Exp(), tensor.Exp(x)},
		"Log":         {x.Log(), tensor.Log(x)},
		"Sqrt":        {x.Sqrt(), tensor.Sqrt(x)},
		"Pow":         {x.Pow(1.5), tensor.Pow(x, 1.5)},
		"Sum":         {x.Sum(), tensor.Sum(x)},
		"Mean":        {x.Mean(), tensor.Mean(x)},
		"SumDim":      {x.SumDim(1, true), tensor.SumDim(x, 1, true)},
		"MeanDim":     {x.MeanDim(0, false), tensor.MeanDim(x, 0, false)},
		"ArgMax":      {x.ArgMax(), tensor.ArgMax(x)},
		"Softmax":     {x.Softmax(), tensor.Softmax(x)},
		"LogSoftmax":  {x.LogSoftmax(), tensor.LogSoftmax(x)},
		"IndexSelect": {x.IndexSelect(idx), tensor.IndexSelect(x, idx)},
		"Narrow":      {x.Narrow(1, 2), tensor.Narrow(x, 1, 2)},
		"Reshape":     {x.Reshape(-1, 6), tensor.Reshape(x, -1, 6)},
		"T":           {x.T(), tensor.Transpose(x)},
	}
	for name, c := range cases {
		got, want := c[0], c[1]
		if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) {
			t.Errorf("%s: %v %v, want %v %v", name, got.DType(), got.Shape(), want.DType(), want.Shape())
			continue
		}
		if got.DType() == tensor.Int64 {
			if !slices.Equal(got.Int64s(), want.Int64s()) {
				t.Errorf("%s: %v, want %v", name, got.Int64s(), want.Int64s())
			}
		} else if !slices.Equal(got.Float32s(), want.Float32s()) {
			t.Errorf("%s: %v, want %v", name, got.Float32s(), want.Float32s())
		}
	}

	// Gradients flow through a method chain as through the functions.
	a := tensor.Rand(gen, -1, 1, 3, 4).SetRequiresGrad(true)
	b := a.Detach().SetRequiresGrad(true)
	a.MatMul(w).ReLU().Sum().Backward()
	tensor.Sum(tensor.ReLU(tensor.MatMul(b, w))).Backward()
	if !slices.Equal(a.Grad().Float32s(), b.Grad().Float32s()) {
		t.Errorf("gradient through methods %v, through functions %v", a.Grad().Float32s(), b.Grad().Float32s())
	}

	f, err := parser.ParseFile(token.NewFileSet(), "methods.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
			if _, ok := cases[fd.Name.Name]; !ok {
				t.Errorf("method %s of methods.go is not checked here", fd.Name.Name)
			}
		}
	}
}
