package tensor

// The elementwise kernels of the fake device of device_test.go: it has no
// memory, so no op reaches them.
func (fakeBackend) Binary(BinaryOp, *Tensor, *Tensor, *Tensor) { panic("fake device") }
func (fakeBackend) Unary(UnaryOp, *Tensor, *Tensor, float32)   { panic("fake device") }
func (fakeBackend) UnaryBackward(UnaryOp, *Tensor, *Tensor, *Tensor, *Tensor, float32) {
	panic("fake device")
}
func (fakeBackend) SumTo(*Tensor, *Tensor)      { panic("fake device") }
func (fakeBackend) Accumulate(*Tensor, *Tensor) { panic("fake device") }
func (fakeBackend) Cast(*Tensor, *Tensor)       { panic("fake device") }
func (fakeBackend) Fill(*Tensor, float64)       { panic("fake device") }
