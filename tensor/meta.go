package tensor

// The meta device (PyTorch's "meta"): tensors with a shape and a dtype and
// no data. Every op runs its checks, autocast and allocations on meta
// tensors exactly as on the device the meta device stands for, and its
// kernels do nothing, so a model's forward and backward on meta tensors
// give the shapes of every result and, through the memory accounting of
// "meta" (MemoryAllocated("meta"), MaxMemoryAllocated("meta")), the
// memory the step would take. memplan.Predict runs the real model this
// way. "meta" counts bytes as the CPU does; "meta:cuda" as a CUDA device's
// caching allocator does (blocks of 512 bytes below 1 MiB, 2 MiB above).
// Reading a meta tensor's values (Float32s, Item, To("cpu")) panics with
// ErrDevice.

// metaBuffer is the accounting of a storage with no memory.
type metaBuffer struct{ bytes int64 }

func (b metaBuffer) Bytes() int64 { return b.bytes }

// metaBackend is "meta" (standsFor "cpu") or "meta:cuda".
type metaBackend struct {
	name      string
	standsFor string
}

func init() {
	RegisterBackend(BackendKind{Kind: "meta", Variants: []string{"cuda"},
		Open: func(v int) (Backend, error) {
			if v == 0 {
				return &metaBackend{name: "meta:cuda", standsFor: "cuda"}, nil
			}
			return &metaBackend{name: "meta", standsFor: "cpu"}, nil
		},
		Status: func() (bool, string) {
			return true, "shapes only; \"meta\" counts as the CPU, \"meta:cuda\" as a CUDA caching allocator"
		}})
}

func (m *metaBackend) Device() string { return m.name }

func (m *metaBackend) Alloc(op string, dt DType, n int, zero bool) Buffer {
	bytes := int64(n) * int64(dt.Size())
	if m.standsFor == "cuda" {
		return metaBuffer{roundBlock(bytes)}
	}
	return metaBuffer{bytes}
}

func (*metaBackend) Release(Buffer) bool     { return false }
func (*metaBackend) Upload(dst, src *Tensor) {}
func (*metaBackend) Download(dst, src *Tensor) {
	panicf(ErrDevice, "To", "a meta tensor has no values to copy")
}
func (*metaBackend) CopyDevice(dst, src *Tensor) {}
func (*metaBackend) Synchronize() error          { return nil }

// ---------------------------------------------------------------------
// elementwise kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

func (*metaBackend) Binary(op BinaryOp, out, a, b *Tensor)                    {}
func (*metaBackend) Unary(op UnaryOp, out, x *Tensor, p float32)              {}
func (*metaBackend) UnaryBackward(op UnaryOp, gx, g, x, y *Tensor, p float32) {}
func (*metaBackend) SumTo(out, g *Tensor)                                     {}
func (*metaBackend) Accumulate(dst, src *Tensor)                              {}
func (*metaBackend) Cast(out, x *Tensor)                                      {}
func (*metaBackend) Fill(out *Tensor, v float64)                              {}

// (end of elementwise kernels)
//
//
//

// ---------------------------------------------------------------------
// matmul kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

// (end of matmul kernels)
//
//
//

// ---------------------------------------------------------------------
// sparse kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

// (end of sparse kernels)
//
//
//

// ---------------------------------------------------------------------
// index kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

// (end of index kernels)
//
//
//

// ---------------------------------------------------------------------
// reduce kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

// (end of reduce kernels)
//
//
//

// ---------------------------------------------------------------------
// random kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

// (end of random kernels)
//
//
//

// ---------------------------------------------------------------------
// step kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

// (end of step kernels)
//
//
//
