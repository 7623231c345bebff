package tensor

// The MatMul, Random and Step kernels of the fake device of device_test.go:
// it has none, so every one panics.

func (f fakeBackend) Gemm(tA, tB bool, alpha float32, a, b *Tensor, beta float32, c *Tensor, ws []*Tensor) {
	f.none("Gemm")
}
func (f fakeBackend) GemmWorkspace(tA, tB bool, a, b, c *Tensor) (DType, []int) {
	f.none("GemmWorkspace")
	return 0, nil
}
func (f fakeBackend) AddMM(out, c *Tensor, pairs []*Tensor, relu bool, ws []*Tensor) { f.none("AddMM") }
func (f fakeBackend) AddMMWorkspace(out, c *Tensor, pairs []*Tensor) (DType, []int) {
	f.none("AddMMWorkspace")
	return 0, nil
}
func (f fakeBackend) AddMMReLUBackward(gx, g, y *Tensor) { f.none("AddMMReLUBackward") }
func (f fakeBackend) DropoutMaskWords(int) int {
	f.none("DropoutMaskWords")
	return 0
}
func (f fakeBackend) DropoutForward(out, x, mask *Tensor, reuse bool, p float32, seed, base uint64) {
	f.none("DropoutForward")
}
func (f fakeBackend) DropoutBackward(gx, g, mask *Tensor, p float32, seed, base uint64) {
	f.none("DropoutBackward")
}
func (f fakeBackend) AdamStep(param, grad, m, v *Tensor, cfg AdamConfig) { f.none("AdamStep") }
func (f fakeBackend) Axpy(y, x *Tensor, alpha float32)                   { f.none("Axpy") }
func (f fakeBackend) Scale(x *Tensor, alpha float32)                     { f.none("Scale") }

// none panics: the fake device has no kernels.
func (f fakeBackend) none(kernel string) {
	panicf(ErrNotImplemented, kernel, "fake device %s has no kernels", string(f))
}
