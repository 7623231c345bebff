package tensor

// Method forms of the common ops, as PyTorch's tensor methods: each is one
// call of the package function of the same name (T calls Transpose), with
// the receiver as the first operand, so the function's doc (shapes, dtypes,
// devices, autocast, panics, gradients) is the method's. They chain:
//
//	h := x.MatMul(w1).Add(b1).ReLU()  // (N, F) x (F, H) + (H) -> (N, H)
//	p := h.MatMul(w2).Softmax()       // (N, C), each row sums to 1
//	h.Sum().Backward()
//
// Conversions and autograd were methods already: To, ToCPU, Cast, Half,
// BFloat16, Float, Clone, Detach, Backward.

// MatMul returns MatMul(t, w), torch's t @ w: (M, K) x (K, N) -> (M, N).
func (t *Tensor) MatMul(w *Tensor) *Tensor { return MatMul(t, w) }

// Add returns Add(t, y), t + y with broadcasting.
func (t *Tensor) Add(y *Tensor) *Tensor { return Add(t, y) }

// Sub returns Sub(t, y), t - y with broadcasting.
func (t *Tensor) Sub(y *Tensor) *Tensor { return Sub(t, y) }

// Mul returns Mul(t, y), t * y elementwise with broadcasting.
func (t *Tensor) Mul(y *Tensor) *Tensor { return Mul(t, y) }

// Div returns Div(t, y), t / y elementwise with broadcasting.
func (t *Tensor) Div(y *Tensor) *Tensor { return Div(t, y) }

// AddScalar returns AddScalar(t, s), t + s.
func (t *Tensor) AddScalar(s float32) *Tensor { return AddScalar(t, s) }

// MulScalar returns MulScalar(t, s), t * s.
func (t *Tensor) MulScalar(s float32) *Tensor { return MulScalar(t, s) }

// Neg returns Neg(t), -t.
func (t *Tensor) Neg() *Tensor { return Neg(t) }

// ReLU returns ReLU(t), max(t, 0) elementwise.
func (t *Tensor) ReLU() *Tensor { return ReLU(t) }

// Sigmoid returns Sigmoid(t), 1 / (1 + exp(-t)) elementwise.
func (t *Tensor) Sigmoid() *Tensor { return Sigmoid(t) }

// Tanh returns Tanh(t), tanh elementwise.
func (t *Tensor) Tanh() *Tensor { return Tanh(t) }

// Exp returns Exp(t), exp elementwise.
func (t *Tensor) Exp() *Tensor { return Exp(t) }

// Log returns Log(t), the natural logarithm elementwise.
func (t *Tensor) Log() *Tensor { return Log(t) }

// Sqrt returns Sqrt(t), the square root elementwise.
func (t *Tensor) Sqrt() *Tensor { return Sqrt(t) }

// Pow returns Pow(t, p), t**p elementwise.
func (t *Tensor) Pow(p float32) *Tensor { return Pow(t, p) }

// Sum returns Sum(t), the sum of all elements, shape ().
func (t *Tensor) Sum() *Tensor { return Sum(t) }

// Mean returns Mean(t), the mean of all elements, shape ().
func (t *Tensor) Mean() *Tensor { return Mean(t) }

// SumDim returns SumDim(t, dim, keepDim), torch's t.sum(dim, keepdim).
func (t *Tensor) SumDim(dim int, keepDim bool) *Tensor { return SumDim(t, dim, keepDim) }

// MeanDim returns MeanDim(t, dim, keepDim), torch's t.mean(dim, keepdim).
func (t *Tensor) MeanDim(dim int, keepDim bool) *Tensor { return MeanDim(t, dim, keepDim) }

// ArgMax returns ArgMax(t), the int64 index of each row's largest value: (N, C) -> (N).
func (t *Tensor) ArgMax() *Tensor { return ArgMax(t) }

// Softmax returns Softmax(t), over the last dimension.
func (t *Tensor) Softmax() *Tensor { return Softmax(t) }

// LogSoftmax returns LogSoftmax(t), over the last dimension.
func (t *Tensor) LogSoftmax() *Tensor { return LogSoftmax(t) }

// IndexSelect returns IndexSelect(t, idx), rows t[idx[i]]: (N, ...) x (M) int64 -> (M, ...).
func (t *Tensor) IndexSelect(idx *Tensor) *Tensor { return IndexSelect(t, idx) }

// Narrow returns Narrow(t, start, length), rows [start, start+length) as a view.
func (t *Tensor) Narrow(start, length int) *Tensor { return Narrow(t, start, length) }

// Reshape returns Reshape(t, shape...), a view with a new shape (one -1 is inferred).
func (t *Tensor) Reshape(shape ...int) *Tensor { return Reshape(t, shape...) }

// T returns Transpose(t), torch's t.T: the transpose of a 2-D tensor, (M, N) -> (N, M), copied.
func (t *Tensor) T() *Tensor { return Transpose(t) }
