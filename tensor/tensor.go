package tensor

import (
	"math"
	"unsafe"
)

// Tensor is a dense, contiguous, row-major array of one DType on one device,
// optionally tracked by autograd.
type Tensor struct {
	shape []int
	dtype DType
	st    *storage
	off   int // element offset into st (views made by Narrow)
	n     int // number of elements

	requiresGrad bool
	grad         *Tensor
	node         *node // the op that produced this tensor, nil for leaves
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			panicf(ErrShape, "New", "negative dimension in shape %v", shape)
		}
		if d != 0 && n > math.MaxInt64/8/d {
			panicf(ErrShape, "New", "shape %v has too many elements", shape)
		}
		n *= d
	}
	return n
}

// Zeros returns a float32 tensor of the given shape filled with 0.
func Zeros(shape ...int) *Tensor { return New(Float32, shape...) }

// New returns a tensor of dtype dt and the given shape filled with zeros.
// It panics with ErrDType for a dtype that is none of the defined ones.
func New(dt DType, shape ...int) *Tensor {
	if dt.Size() == 0 {
		panicf(ErrDType, "New", "unknown dtype %d (want tensor.Float32, Float16, BFloat16, Int8, Int64 or Bool)", int(dt))
	}
	n := numel(shape)
	checkHostMemory("New", dt, n, int64(n)*int64(dt.Size()), shape)
	return &Tensor{shape: append([]int(nil), shape...), dtype: dt, st: newStorage(dt, n), n: n}
}

// Full returns a float32 tensor of the given shape filled with v.
func Full(v float32, shape ...int) *Tensor {
	t := Empty(Float32, shape...)
	d := t.Float32s()
	for i := range d {
		d[i] = v
	}
	return t
}

// Ones returns a float32 tensor of the given shape filled with 1.
func Ones(shape ...int) *Tensor { return Full(1, shape...) }

// Scalar returns a 0-dimensional float32 tensor holding v.
func Scalar(v float32) *Tensor { return FromFloat32([]float32{v}) }

// FromFloat32 wraps data (not copied) as a float32 tensor of the given shape;
// with no shape it is 1-D. It panics with ErrShape when the sizes disagree.
func FromFloat32(data []float32, shape ...int) *Tensor {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	n := numel(shape)
	if n != len(data) {
		panicf(ErrShape, "FromFloat32", "shape %v needs %d values, got %d", shape, n, len(data))
	}
	st := hostStorage(unsafe.Pointer(unsafe.SliceData(data)), Float32, n)
	return &Tensor{shape: append([]int(nil), shape...), dtype: Float32, st: st, n: n}
}

// FromInt64 wraps data (not copied) as an int64 tensor; see FromFloat32.
func FromInt64(data []int64, shape ...int) *Tensor {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	n := numel(shape)
	if n != len(data) {
		panicf(ErrShape, "FromInt64", "shape %v needs %d values, got %d", shape, n, len(data))
	}
	st := hostStorage(unsafe.Pointer(unsafe.SliceData(data)), Int64, n)
	return &Tensor{shape: append([]int(nil), shape...), dtype: Int64, st: st, n: n}
}

// FromBool wraps data (not copied) as a bool tensor; see FromFloat32.
func FromBool(data []bool, shape ...int) *Tensor {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	n := numel(shape)
	if n != len(data) {
		panicf(ErrShape, "FromBool", "shape %v needs %d values, got %d", shape, n, len(data))
	}
	st := hostStorage(unsafe.Pointer(unsafe.SliceData(data)), Bool, n)
	return &Tensor{shape: append([]int(nil), shape...), dtype: Bool, st: st, n: n}
}

// FromUint16 wraps bits (not copied) as a tensor of dtype dt, Float16 or
// BFloat16, each element the IEEE binary16 or bfloat16 bit pattern; see
// FromFloat32. It panics with ErrDType for another dtype and with ErrShape
// when the sizes disagree. To convert float32 values, use
// FromFloat32(v).Cast(dt).
func FromUint16(dt DType, bits []uint16, shape ...int) *Tensor {
	if !isLow(dt) {
		panicf(ErrDType, "FromUint16", "dtype must be float16 or bfloat16, got %s", dt)
	}
	if len(shape) == 0 {
		shape = []int{len(bits)}
	}
	n := numel(shape)
	if n != len(bits) {
		panicf(ErrShape, "FromUint16", "shape %v needs %d values, got %d", shape, n, len(bits))
	}
	st := hostStorage(unsafe.Pointer(unsafe.SliceData(bits)), dt, n)
	return &Tensor{shape: append([]int(nil), shape...), dtype: dt, st: st, n: n}
}

// FromInt8 wraps data (not copied) as an int8 tensor; see FromFloat32.
func FromInt8(data []int8, shape ...int) *Tensor {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	n := numel(shape)
	if n != len(data) {
		panicf(ErrShape, "FromInt8", "shape %v needs %d values, got %d", shape, n, len(data))
	}
	st := hostStorage(unsafe.Pointer(unsafe.SliceData(data)), Int8, n)
	return &Tensor{shape: append([]int(nil), shape...), dtype: Int8, st: st, n: n}
}

// Arange returns a 1-D int64 tensor of evenly spaced values, as
// torch.arange: Arange(end) is [0, 1, ..., end-1], Arange(start, end) is
// [start, ..., end-1] and Arange(start, end, step) steps by step (which may
// be negative), stopping before end. It panics with ErrArgument for no or
// more than three arguments, a zero step, or a step whose sign does not
// lead from start to end (Arange(-1), Arange(5, 2)).
func Arange(args ...int) *Tensor {
	start, end, step := 0, 0, 1
	switch len(args) {
	case 1:
		end = args[0]
	case 2:
		start, end = args[0], args[1]
	case 3:
		start, end, step = args[0], args[1], args[2]
	default:
		panicf(ErrArgument, "Arange", "takes end, (start, end) or (start, end, step), got %d arguments", len(args))
	}
	if step == 0 || (end-start)*step < 0 {
		panicf(ErrArgument, "Arange", "the range [%d, %d) and step %d have inconsistent signs (torch.arange's error)", start, end, step)
	}
	n := (end - start + step - 1) / step
	if step < 0 {
		n = (start - end - step - 1) / -step
	}
	t := New(Int64, n)
	d := t.Int64s()
	for i := range d {
		d[i] = int64(start + i*step)
	}
	return t
}

// Shape returns a copy of the tensor's shape.
func (t *Tensor) Shape() []int { return append([]int(nil), t.shape...) }

// Dim returns the number of dimensions.
func (t *Tensor) Dim() int { return len(t.shape) }

// Size returns the length of dimension d (negative d counts from the end).
func (t *Tensor) Size(d int) int {
	if d < 0 {
		d += len(t.shape)
	}
	if d < 0 || d >= len(t.shape) {
		panicf(ErrShape, "Size", "dimension %d out of range for shape %v", d, t.shape)
	}
	return t.shape[d]
}

// Numel returns the number of elements.
func (t *Tensor) Numel() int { return t.n }

// DType returns the element type.
func (t *Tensor) DType() DType { return t.dtype }

// Device returns the device the tensor lives on: "cpu" or "cuda:N" (see To).
func (t *Tensor) Device() string { return t.st.device }

// Nbytes returns the bytes of the tensor's elements.
func (t *Tensor) Nbytes() int64 { return int64(t.n) * int64(t.dtype.Size()) }

// Float32s returns the tensor's float32 elements (shared, not copied). It
// panics with ErrDType for another dtype.
func (t *Tensor) Float32s() []float32 {
	if t.dtype != Float32 {
		panicf(ErrDType, "Float32s", "tensor is %s, not float32", t.dtype)
	}
	mustHost("Float32s", t)
	return hostView[float32](t)
}

// Int64s returns the tensor's int64 elements (shared, not copied).
func (t *Tensor) Int64s() []int64 {
	if t.dtype != Int64 {
		panicf(ErrDType, "Int64s", "tensor is %s, not int64", t.dtype)
	}
	mustHost("Int64s", t)
	return hostView[int64](t)
}

// Bools returns the tensor's bool elements (shared, not copied).
func (t *Tensor) Bools() []bool {
	if t.dtype != Bool {
		panicf(ErrDType, "Bools", "tensor is %s, not bool", t.dtype)
	}
	mustHost("Bools", t)
	return hostView[bool](t)
}

// Uint16s returns the bits of a Float16 or BFloat16 tensor's elements
// (shared, not copied); Cast(Float32) gives their values. It panics with
// ErrDType for another dtype.
func (t *Tensor) Uint16s() []uint16 {
	if !isLow(t.dtype) {
		panicf(ErrDType, "Uint16s", "tensor is %s, not float16 or bfloat16", t.dtype)
	}
	mustHost("Uint16s", t)
	return hostView[uint16](t)
}

// Int8s returns an Int8 tensor's elements (shared, not copied).
func (t *Tensor) Int8s() []int8 {
	if t.dtype != Int8 {
		panicf(ErrDType, "Int8s", "tensor is %s, not int8", t.dtype)
	}
	mustHost("Int8s", t)
	return hostView[int8](t)
}

// Item returns the value of a one-element tensor as float64 (a float16 or
// bfloat16 value widened exactly).
func (t *Tensor) Item() float64 {
	if t.n != 1 {
		panicf(ErrShape, "Item", "tensor of shape %v has %d elements, want 1", t.shape, t.n)
	}
	if t.st.device != "cpu" {
		return deviceElem(t, 0)
	}
	return elem(t, 0)
}

// deviceElem reads element off of a tensor on another device than the CPU
// as float64 (Item, At) by downloading it (on a GPU a synchronization); a
// meta tensor panics with ErrDevice.
func deviceElem(t *Tensor, off int) float64 {
	one := &Tensor{shape: []int{1}, dtype: t.dtype, st: t.st, off: t.off + off, n: 1}
	return elem(download(one), 0)
}

// At returns the element at the given indices as float64.
func (t *Tensor) At(idx ...int) float64 {
	if len(idx) != len(t.shape) {
		panicf(ErrShape, "At", "%d indices for shape %v", len(idx), t.shape)
	}
	off := 0
	for i, x := range idx {
		if x < 0 || x >= t.shape[i] {
			panicf(ErrIndex, "At", "index %v out of range for shape %v", idx, t.shape)
		}
		off = off*t.shape[i] + x
	}
	if t.st.device != "cpu" {
		return deviceElem(t, off)
	}
	return elem(t, off)
}

// RequiresGrad reports whether autograd tracks this tensor.
func (t *Tensor) RequiresGrad() bool { return t.requiresGrad }

// SetRequiresGrad marks a leaf tensor as a parameter whose gradient Backward
// accumulates into Grad. It returns t.
func (t *Tensor) SetRequiresGrad(v bool) *Tensor {
	if t.node != nil && !v {
		panicf(ErrShape, "SetRequiresGrad", "cannot clear requires_grad of a non-leaf tensor; use Detach")
	}
	if v && !t.dtype.IsFloatingPoint() {
		panicf(ErrDType, "SetRequiresGrad", "only floating-point tensors can require gradients, got %s", t.dtype)
	}
	t.requiresGrad = v
	return t
}

// Grad returns the accumulated gradient of a leaf tensor, or nil.
func (t *Tensor) Grad() *Tensor { return t.grad }

// SetGrad replaces the accumulated gradient (nil clears it).
func (t *Tensor) SetGrad(g *Tensor) {
	backendOf("SetGrad", t, g)
	if g != nil && !sameShape(g.shape, t.shape) {
		panicf(ErrShape, "SetGrad", "gradient shape %v does not match tensor shape %v", g.shape, t.shape)
	}
	t.grad = g
}

// ZeroGrad clears the accumulated gradient.
func (t *Tensor) ZeroGrad() { t.grad = nil }

// IsLeaf reports whether t was created by the user rather than by an op.
func (t *Tensor) IsLeaf() bool { return t.node == nil }

// Detach returns a tensor sharing t's data with no autograd history.
func (t *Tensor) Detach() *Tensor {
	return &Tensor{shape: t.shape, dtype: t.dtype, st: t.st, off: t.off, n: t.n}
}

// Clone returns a copy of t's data with no autograd history.
func (t *Tensor) Clone() *Tensor {
	c := emptyOn("Clone", t.st.be, t.dtype, false, t.shape...)
	t.st.be.CopyDevice(c, t)
	return c
}

// CopyFrom copies src's elements into t in place (same dtype and element
// count), outside autograd. Optimizers and checkpoint loading use it.
func (t *Tensor) CopyFrom(src *Tensor) {
	if src.dtype != t.dtype || src.n != t.n {
		panicf(ErrShape, "CopyFrom", "cannot copy %s%v into %s%v", src.dtype, src.shape, t.dtype, t.shape)
	}
	switch {
	case t.st.be == src.st.be:
		t.st.be.CopyDevice(t, src)
	case src.st.device == "cpu":
		t.st.be.Upload(t, src)
	case t.st.device == "cpu":
		src.st.be.Download(t, src)
	default: // between devices through the host
		t.st.be.Upload(t, download(src))
	}
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
