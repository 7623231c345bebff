package tensor

// The sparse kernels of the fake device of device_test.go: it has none
// (its tensors only reach ops that refuse them before any kernel runs).
func (fakeBackend) SpMM(*Adj, string, *Tensor, *Tensor, *Tensor, *Tensor) { panic("fake device") }
func (fakeBackend) SpMMBackwardU(*Adj, string, *Tensor, *Tensor, *Tensor, *Tensor, *Tensor) {
	panic("fake device")
}
func (fakeBackend) SpMMBackwardE(*Adj, string, *Tensor, *Tensor, *Tensor, *Tensor, *Tensor) {
	panic("fake device")
}
func (fakeBackend) SDDMM(*Adj, string, *Tensor, *Tensor, *Tensor) { panic("fake device") }
func (fakeBackend) SDDMMBackward(*Adj, string, *Tensor, *Tensor, *Tensor, *Tensor, *Tensor) {
	panic("fake device")
}
func (fakeBackend) EdgeSoftmax(*Adj, *Tensor, *Tensor)                  { panic("fake device") }
func (fakeBackend) EdgeSoftmaxBackward(*Adj, *Tensor, *Tensor, *Tensor) { panic("fake device") }
func (fakeBackend) ScatterAdj(*Tensor, int) *Adj                        { panic("fake device") }
