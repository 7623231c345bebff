package tensor

// The backward rules: how each op's output gradient flows to its inputs,
// one function per op, written with tensor ops (public ones, or unexported
// ops that dispatch through the Backend like the public ones), so that a
// rule runs on whatever device and in whatever dtype its tensors have.
// Ops record them with record(out, op, inputs, rule); Backward runs them
// with autograd and autocast off. The table follows the op files.
// (Model: tinygrad's gradient.py.)

// ---------------------------------------------------------------------
// elementwise.go
// ---------------------------------------------------------------------

// (end of elementwise rules)
//
//
//

// ---------------------------------------------------------------------
// matmul.go
// ---------------------------------------------------------------------

// (end of matmul rules)
//
//
//

// ---------------------------------------------------------------------
// sparse.go
// ---------------------------------------------------------------------

// (end of sparse rules)
//
//
//

// ---------------------------------------------------------------------
// index.go
// ---------------------------------------------------------------------

// (end of index rules)
//
//
//

// ---------------------------------------------------------------------
// reduce.go, softmax.go
// ---------------------------------------------------------------------

// (end of reduce rules)
//
//
//

// ---------------------------------------------------------------------
// random.go, step.go
// ---------------------------------------------------------------------

// (end of random rules)
