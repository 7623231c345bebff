package datasets

// Decoding of the Python 2 protocol-2 pickles used by the Planetoid files,
// on top of github.com/nlpodyssey/gopickle. Only the classes these files
// reference are resolved (scipy csr_matrix, numpy ndarray via _reconstruct,
// numpy dtype, collections.defaultdict, __builtin__.list); any other global,
// and any state that does not have the documented shape, is an error.

import (
	"bytes"
	"fmt"
	"math"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// unpickle decodes one pickle from b with the restricted class table. A panic
// inside the decoder (possible on malformed input) is returned as an error.
func unpickle(b []byte) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("%w: malformed pickle: %v", ErrFormat, r)
		}
	}()
	if len(b) < 2 || b[0] != 0x80 || b[1] != 2 {
		return nil, fmt.Errorf("%w: not a protocol-2 pickle (does not start with 80 02)", ErrFormat)
	}
	u := pickle.NewUnpickler(bytes.NewReader(b))
	u.FindClass = findClass
	v, err = u.Load()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return v, nil
}

func findClass(module, name string) (any, error) {
	switch module + "." + name {
	case "scipy.sparse.csr.csr_matrix":
		return csrClass{}, nil
	case "numpy.core.multiarray._reconstruct":
		return reconstructFunc{}, nil
	case "numpy.ndarray":
		return ndarrayClass{}, nil
	case "numpy.dtype":
		return dtypeClass{}, nil
	case "collections.defaultdict":
		return defaultDictClass{}, nil
	case "__builtin__.list":
		return listClass{}, nil
	}
	return nil, fmt.Errorf("unexpected global %s.%s", module, name)
}

// ndarrayClass stands for numpy.ndarray; listClass for the builtin list.
type (
	ndarrayClass struct{}
	listClass    struct{}
)

// dtype is a numpy dtype restricted to little-endian i4 and f4.
type dtype struct {
	kind  string // "i4" or "f4"
	order string // byte order from the state: "<", "|" or "="
	set   bool
}

type dtypeClass struct{}

// Call implements numpy.dtype(kind, align, copy).
func (dtypeClass) Call(args ...any) (any, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("numpy.dtype: %d arguments, want 3", len(args))
	}
	k, ok := args[0].(string)
	if !ok || (k != "i4" && k != "f4") {
		return nil, fmt.Errorf("numpy.dtype: unsupported kind %#v (want 'i4' or 'f4')", args[0])
	}
	return &dtype{kind: k}, nil
}

// PySetState takes numpy's dtype state (3, '<', None, None, None, -1, -1, 0).
func (d *dtype) PySetState(state any) error {
	t, ok := state.(*types.Tuple)
	if !ok || t.Len() < 2 {
		return fmt.Errorf("numpy.dtype state: %#v, want a tuple", state)
	}
	o, ok := t.Get(1).(string)
	if !ok || (o != "<" && o != "|" && o != "=") {
		return fmt.Errorf("numpy.dtype %s: unsupported byte order %#v (want little-endian '<')", d.kind, t.Get(1))
	}
	d.order, d.set = o, true
	return nil
}

// ndarray is a decoded numpy array of i4 or f4 (C order).
type ndarray struct {
	shape []int
	dtype *dtype
	i32   []int32
	f32   []float32
	built bool
}

type reconstructFunc struct{}

// Call implements numpy.core.multiarray._reconstruct(ndarray, (0,), 'b').
func (reconstructFunc) Call(args ...any) (any, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("_reconstruct: %d arguments, want 3", len(args))
	}
	if _, ok := args[0].(ndarrayClass); !ok {
		return nil, fmt.Errorf("_reconstruct: first argument %#v is not numpy.ndarray", args[0])
	}
	return &ndarray{}, nil
}

// PySetState takes the ndarray state (version, shape, dtype, fortran, raw).
func (a *ndarray) PySetState(state any) error {
	t, ok := state.(*types.Tuple)
	if !ok || t.Len() != 5 {
		return fmt.Errorf("ndarray state: %#v, want a 5-tuple", state)
	}
	st, ok := t.Get(1).(*types.Tuple)
	if !ok {
		return fmt.Errorf("ndarray shape: %#v, want a tuple", t.Get(1))
	}
	n := 1
	for i := 0; i < st.Len(); i++ {
		d, ok := st.Get(i).(int)
		if !ok || d < 0 {
			return fmt.Errorf("ndarray shape: %#v is not a non-negative int", st.Get(i))
		}
		a.shape = append(a.shape, d)
		if d != 0 && n > math.MaxInt32/d {
			return fmt.Errorf("ndarray shape %v too large", a.shape)
		}
		n *= d
	}
	dt, ok := t.Get(2).(*dtype)
	if !ok || !dt.set {
		return fmt.Errorf("ndarray dtype: %#v, want a built numpy.dtype", t.Get(2))
	}
	a.dtype = dt
	if fortran, ok := t.Get(3).(bool); !ok || (fortran && len(a.shape) > 1) {
		return fmt.Errorf("ndarray: fortran flag %#v, want False", t.Get(3))
	}
	raw, ok := t.Get(4).(string)
	if !ok {
		return fmt.Errorf("ndarray data: %T, want a byte string", t.Get(4))
	}
	if len(raw) != 4*n {
		return fmt.Errorf("ndarray %s%v: %d data bytes, want %d", dt.kind, a.shape, len(raw), 4*n)
	}
	switch dt.kind {
	case "i4":
		a.i32 = make([]int32, n)
		for i := range a.i32 {
			a.i32[i] = int32(le32(raw, 4*i))
		}
	case "f4":
		a.f32 = make([]float32, n)
		for i := range a.f32 {
			a.f32[i] = math.Float32frombits(le32(raw, 4*i))
		}
	}
	a.built = true
	return nil
}

func le32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// csrMatrix is a decoded scipy.sparse.csr_matrix with float32 data.
type csrMatrix struct {
	rows, cols int
	indptr     []int32 // (rows+1)
	indices    []int32 // (nnz), column ids, sorted within each row
	data       []float32
	state      bool
}

type csrClass struct{}

// PyNew implements csr_matrix.__new__(csr_matrix) from NEWOBJ.
func (csrClass) PyNew(args ...any) (any, error) {
	if len(args) != 0 {
		return nil, fmt.Errorf("csr_matrix.__new__: %d arguments, want 0", len(args))
	}
	return &csrMatrix{}, nil
}

// PySetState takes the csr_matrix __dict__.
func (m *csrMatrix) PySetState(state any) error {
	d, ok := state.(*types.Dict)
	if !ok {
		return fmt.Errorf("csr_matrix state: %T, want a dict", state)
	}
	var indptr, indices, data *ndarray
	shapeSet := false
	for _, e := range *d {
		k, ok := e.Key.(string)
		if !ok {
			return fmt.Errorf("csr_matrix state key %#v is not a string", e.Key)
		}
		switch k {
		case "format":
			if e.Value != "csr" {
				return fmt.Errorf("csr_matrix format %#v, want 'csr'", e.Value)
			}
		case "_shape":
			t, ok := e.Value.(*types.Tuple)
			if !ok || t.Len() != 2 {
				return fmt.Errorf("csr_matrix _shape %#v, want a 2-tuple", e.Value)
			}
			r, ok1 := t.Get(0).(int)
			c, ok2 := t.Get(1).(int)
			if !ok1 || !ok2 || r < 0 || c < 0 {
				return fmt.Errorf("csr_matrix _shape %#v, want two non-negative ints", e.Value)
			}
			m.rows, m.cols, shapeSet = r, c, true
		case "indptr", "indices", "data":
			a, ok := e.Value.(*ndarray)
			if !ok || !a.built || len(a.shape) != 1 {
				return fmt.Errorf("csr_matrix %s: %#v, want a 1-D ndarray", k, e.Value)
			}
			switch k {
			case "indptr":
				indptr = a
			case "indices":
				indices = a
			default:
				data = a
			}
		case "maxprint", "_cs_matrix__has_sorted_indices", "_has_canonical_format":
			// informational
		default:
			return fmt.Errorf("csr_matrix: unexpected attribute %q", k)
		}
	}
	if !shapeSet || indptr == nil || indices == nil || data == nil {
		return fmt.Errorf("csr_matrix state lacks _shape, indptr, indices or data")
	}
	if indptr.i32 == nil || indices.i32 == nil || data.f32 == nil {
		return fmt.Errorf("csr_matrix dtypes: indptr %s, indices %s, data %s; want i4, i4, f4",
			indptr.dtype.kind, indices.dtype.kind, data.dtype.kind)
	}
	m.indptr, m.indices, m.data = indptr.i32, indices.i32, data.f32
	m.state = true
	return m.check()
}

// check validates the CSR invariants: len(indptr) = rows+1, indptr starts at
// 0, never decreases and ends at nnz, and every column id is in [0, cols).
func (m *csrMatrix) check() error {
	if len(m.indptr) != m.rows+1 {
		return fmt.Errorf("csr_matrix (%d, %d): indptr has %d entries, want %d", m.rows, m.cols, len(m.indptr), m.rows+1)
	}
	nnz := len(m.indices)
	if len(m.data) != nnz {
		return fmt.Errorf("csr_matrix: %d indices but %d data values", nnz, len(m.data))
	}
	if m.indptr[0] != 0 || int(m.indptr[m.rows]) != nnz {
		return fmt.Errorf("csr_matrix: indptr runs %d..%d, want 0..%d", m.indptr[0], m.indptr[m.rows], nnz)
	}
	for i := 0; i < m.rows; i++ {
		if m.indptr[i+1] < m.indptr[i] {
			return fmt.Errorf("csr_matrix: indptr decreases at row %d", i)
		}
	}
	for _, c := range m.indices {
		if c < 0 || int(c) >= m.cols {
			return fmt.Errorf("csr_matrix: column id %d outside [0, %d)", c, m.cols)
		}
	}
	return nil
}

// defaultDict is a decoded collections.defaultdict(list) of int keys to
// lists of ints, in insertion order.
type defaultDict struct {
	keys []int
	vals [][]int
	err  error
}

type defaultDictClass struct{}

// Call implements collections.defaultdict(list).
func (defaultDictClass) Call(args ...any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("defaultdict: %d arguments, want 1", len(args))
	}
	if _, ok := args[0].(listClass); !ok {
		return nil, fmt.Errorf("defaultdict: default factory %#v, want list", args[0])
	}
	return &defaultDict{}, nil
}

// Set implements types.DictSetter. The first bad entry is kept in d.err.
func (d *defaultDict) Set(key, value any) {
	if d.err != nil {
		return
	}
	k, ok := key.(int)
	if !ok {
		d.err = fmt.Errorf("graph key %#v is not an int", key)
		return
	}
	l, ok := value.(*types.List)
	if !ok {
		d.err = fmt.Errorf("graph value for key %d is %T, want a list", k, value)
		return
	}
	vs := make([]int, len(*l))
	for i, x := range *l {
		v, ok := x.(int)
		if !ok {
			d.err = fmt.Errorf("graph neighbour %#v of node %d is not an int", x, k)
			return
		}
		vs[i] = v
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, vs)
}

// decodeCSR decodes a pickled csr_matrix of float32.
func decodeCSR(b []byte) (*csrMatrix, error) {
	v, err := unpickle(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(*csrMatrix)
	if !ok || !m.state {
		return nil, fmt.Errorf("%w: top-level object is %T, want a built scipy csr_matrix", ErrFormat, v)
	}
	return m, nil
}

// decodeInt2D decodes a pickled 2-D int32 ndarray; it returns rows, cols and
// the row-major data.
func decodeInt2D(b []byte) (rows, cols int, data []int32, err error) {
	v, err := unpickle(b)
	if err != nil {
		return 0, 0, nil, err
	}
	a, ok := v.(*ndarray)
	if !ok || !a.built {
		return 0, 0, nil, fmt.Errorf("%w: top-level object is %T, want a numpy ndarray", ErrFormat, v)
	}
	if len(a.shape) != 2 || a.i32 == nil {
		return 0, 0, nil, fmt.Errorf("%w: ndarray %s%v, want a 2-D i4 array", ErrFormat, a.dtype.kind, a.shape)
	}
	return a.shape[0], a.shape[1], a.i32, nil
}

// decodeGraph decodes a pickled defaultdict(list) of int -> [int].
func decodeGraph(b []byte) (*defaultDict, error) {
	v, err := unpickle(b)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*defaultDict)
	if !ok {
		return nil, fmt.Errorf("%w: top-level object is %T, want collections.defaultdict", ErrFormat, v)
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, d.err)
	}
	return d, nil
}
