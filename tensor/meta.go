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
	panicf(ErrDevice, "meta", "a tensor on %s has shapes and dtypes but no values to read or copy (Item, At, display, To(\"cpu\"))", src.st.device)
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

// The scratch a product allocates is what the device the meta device
// stands for asks for.

func (*metaBackend) Gemm(tA, tB bool, alpha float32, a, b *Tensor, beta float32, c *Tensor, ws []*Tensor) {
}

func (m *metaBackend) GemmWorkspace(tA, tB bool, a, b, c *Tensor) (DType, []int) {
	if m.standsFor == "cuda" {
		return cudaGemmWorkspace(tA, tB, a, b, c)
	}
	return cpu.GemmWorkspace(tA, tB, a, b, c)
}

func (*metaBackend) AddMM(out, c *Tensor, pairs []*Tensor, relu bool, ws []*Tensor) {}

func (m *metaBackend) AddMMWorkspace(out, c *Tensor, pairs []*Tensor) (DType, []int) {
	if m.standsFor == "cuda" {
		return cudaAddMMWorkspace(out, c, pairs)
	}
	return cpu.AddMMWorkspace(out, c, pairs)
}

func (*metaBackend) AddMMReLUBackward(gx, g, y *Tensor) {}

// (end of matmul kernels)
//
//
//

// ---------------------------------------------------------------------
// sparse kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

func (*metaBackend) SpMM(adj *Adj, reduce string, u, e, out, arg *Tensor)              {}
func (*metaBackend) SpMMBackwardU(adj *Adj, reduce string, g, e, arg, gu, acc *Tensor) {}
func (*metaBackend) SpMMBackwardE(adj *Adj, reduce string, g, u, arg, ge, acc *Tensor) {}
func (*metaBackend) SDDMM(adj *Adj, op string, lhs, rhs, out *Tensor)                  {}
func (*metaBackend) SDDMMBackward(adj *Adj, op string, g, lhs, rhs, gl, gr *Tensor)    {}
func (*metaBackend) EdgeSoftmax(adj *Adj, scores, out *Tensor)                         {}
func (*metaBackend) EdgeSoftmaxBackward(adj *Adj, out, g, gs *Tensor)                  {}

// ScatterAdj returns an adjacency of the scatter's sizes (len(idx) edges
// into n destinations), all edges at the last destination: a meta index
// has no values, and the meta kernels read none.
func (*metaBackend) ScatterAdj(idx *Tensor, n int) *Adj {
	adj := &Adj{NumSrc: idx.n, NumDst: n, Indptr: make([]int64, n+1)}
	if n > 0 {
		adj.Indptr[n] = int64(idx.n)
		adj.Indices = make([]int64, idx.n)
	}
	return adj
}

// (end of sparse kernels)
//
//
//

// ---------------------------------------------------------------------
// index kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

func (*metaBackend) GatherRows(out, x, idx *Tensor)                                     {}
func (*metaBackend) ScatterAddRows(out, idx, src *Tensor)                               {}
func (*metaBackend) CopyRows(dst *Tensor, do, ds int, src *Tensor, so, ss, rows, w int) {}
func (*metaBackend) Transpose(out, x *Tensor)                                           {}

// (end of index kernels)
//
//
//

// ---------------------------------------------------------------------
// reduce kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

func (*metaBackend) Sum(out, x *Tensor)                            {}
func (*metaBackend) SumDim(out, x *Tensor, outer, d, inner int)    {}
func (*metaBackend) ExpandDim(out, g *Tensor, outer, d, inner int) {}
func (*metaBackend) ArgMax(out, x *Tensor)                         {}
func (*metaBackend) LogSoftmax(out, x *Tensor)                     {}
func (*metaBackend) LogSoftmaxBackward(gx, out, g *Tensor)         {}
func (*metaBackend) NLLLoss(out, logp, targets *Tensor)            {}
func (*metaBackend) NLLLossBackward(gl, g, targets *Tensor)        {}

// CountEqual panics: meta tensors have no values to compare (Accuracy).
func (m *metaBackend) CountEqual(a, b *Tensor) int {
	panicf(ErrDevice, "Accuracy", "tensors on %s have no values to compare; compute the accuracy on a device with data", m.name)
	return 0
}

// (end of reduce kernels)
//
//
//

// ---------------------------------------------------------------------
// random kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

// Dropout keeps mask bits where the device it stands for does (the CPU),
// so the meta device counts them.

func (m *metaBackend) DropoutMaskWords(n int) int {
	if m.standsFor == "cuda" {
		return 0 // a GPU regenerates the mask in backward
	}
	return cpu.DropoutMaskWords(n)
}

func (*metaBackend) DropoutForward(out, x, mask *Tensor, reuse bool, p float32, seed, base uint64) {}
func (*metaBackend) DropoutBackward(gx, g, mask *Tensor, p float32, seed, base uint64)             {}

// (end of random kernels)
//
//
//

// ---------------------------------------------------------------------
// step kernels: nothing to compute on the meta device.
// ---------------------------------------------------------------------

func (*metaBackend) AdamStep(param, grad, m, v *Tensor, cfg AdamConfig) {}
func (*metaBackend) Axpy(y, x *Tensor, alpha float32)                   {}
func (*metaBackend) Scale(x *Tensor, alpha float32)                     {}

// (end of step kernels)
//
//
//
