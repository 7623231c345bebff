package dist

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/internal/dynlib"
)

// metisLib is libmetis opened at run time (Debian's libmetis5: METIS 5.1,
// 32-bit idx_t and real_t, as probed).
type metisLib struct {
	path       string
	idx64      bool // idx_t is 64-bit
	setDefault uintptr
	kway       uintptr
}

var (
	metisOnce sync.Once
	metisL    *metisLib
	metisErr  error
)

// METIS 5 constants (metis.h).
const (
	metisNOptions     = 40
	metisOptionSeed   = 8
	metisOptionNumber = 17
	metisOK           = 1
)

// loadMETIS opens libmetis.so.5 once (GNNREPL_METIS_LIB overrides the search
// with a path) and probes the width of idx_t: METIS_SetDefaultOptions
// writes METIS_NOPTIONS (40) idx_t values of -1, which cover 40 int32 slots
// when idx_t is 32-bit and 80 when it is 64-bit.
func loadMETIS() (*metisLib, error) {
	metisOnce.Do(func() {
		lib, path, err := dynlib.Open(os.Getenv("GNNREPL_METIS_LIB"), dynlib.Dirs("GNNREPL_METIS_LIB_PATH", mpiLibDirs), "libmetis.so.5", "libmetis.so")
		if err != nil {
			metisErr = fmt.Errorf("%w: %v (apt-get install libmetis5)", ErrNoMETIS, err)
			return
		}
		m := &metisLib{path: path}
		if m.setDefault, err = dynlib.Sym(lib, "METIS_SetDefaultOptions"); err == nil {
			m.kway, err = dynlib.Sym(lib, "METIS_PartGraphKway")
		}
		if err != nil {
			metisErr = fmt.Errorf("%w: %s: %v", ErrNoMETIS, path, err)
			return
		}
		probe := make([]int32, 2*metisNOptions+8)
		for i := range probe {
			probe[i] = 0x5a5a5a5a
		}
		dynlib.Call(m.setDefault, uintptr(unsafe.Pointer(&probe[0])))
		n := 0
		for n < len(probe) && probe[n] == -1 {
			n++
		}
		switch n {
		case metisNOptions:
		case 2 * metisNOptions:
			m.idx64 = true
		default:
			metisErr = fmt.Errorf("%w: %s: METIS_SetDefaultOptions wrote %d int32 slots of -1; want 40 (32-bit idx_t) or 80 (64-bit): not METIS 5", ErrNoMETIS, path, n)
			return
		}
		metisL = m
	})
	return metisL, metisErr
}

// METISAvailable reports whether libmetis can be opened, with its path and
// idx_t width, or why not.
func METISAvailable() (string, error) {
	m, err := loadMETIS()
	if err != nil {
		return "", err
	}
	w := 32
	if m.idx64 {
		w = 64
	}
	return fmt.Sprintf("%s (METIS 5, %d-bit idx_t)", m.path, w), nil
}

// partKway runs METIS_PartGraphKway on the symmetric CSR graph (xadj,
// adjncy) with ncon weights per vertex in vwgt (nil: unit weights) into
// nparts parts, and returns the part of every vertex and METIS's edge cut.
func partKway(xadj, adjncy, vwgt []int64, ncon, nparts int, seed int64) ([]int64, int64, error) {
	m, err := loadMETIS()
	if err != nil {
		return nil, 0, err
	}
	n := len(xadj) - 1
	part := make([]int64, n)
	if nparts == 1 || n == 0 {
		return part, 0, nil
	}
	var rc int
	var objval int64
	if m.idx64 {
		opts := make([]int64, metisNOptions)
		dynlib.Call(m.setDefault, uintptr(unsafe.Pointer(&opts[0])))
		opts[metisOptionSeed], opts[metisOptionNumber] = seed, 0
		nv, nc, np := int64(n), int64(ncon), int64(nparts)
		rc = dynlib.Call(m.kway, uintptr(unsafe.Pointer(&nv)), uintptr(unsafe.Pointer(&nc)), uintptr(ptr(xadj)), uintptr(ptr(adjncy)),
			uintptr(ptr(vwgt)), 0, 0, uintptr(unsafe.Pointer(&np)), 0, 0, uintptr(unsafe.Pointer(&opts[0])),
			uintptr(unsafe.Pointer(&objval)), uintptr(ptr(part)))
	} else {
		to32 := func(s []int64) ([]int32, error) {
			o := make([]int32, len(s))
			for i, v := range s {
				if v != int64(int32(v)) {
					return nil, fmt.Errorf("%w: value %d exceeds the 32-bit idx_t of this libmetis", ErrMETIS, v)
				}
				o[i] = int32(v)
			}
			return o, nil
		}
		x, err1 := to32(xadj)
		a, err2 := to32(adjncy)
		w, err3 := to32(vwgt)
		if err := firstErr(err1, err2, err3); err != nil {
			return nil, 0, err
		}
		if vwgt == nil {
			w = nil
		}
		opts := make([]int32, metisNOptions)
		dynlib.Call(m.setDefault, uintptr(unsafe.Pointer(&opts[0])))
		opts[metisOptionSeed], opts[metisOptionNumber] = int32(seed), 0
		p32 := make([]int32, n)
		nv, nc, np := int32(n), int32(ncon), int32(nparts)
		var obj32 int32
		rc = dynlib.Call(m.kway, uintptr(unsafe.Pointer(&nv)), uintptr(unsafe.Pointer(&nc)), uintptr(ptr(x)), uintptr(ptr(a)),
			uintptr(ptr(w)), 0, 0, uintptr(unsafe.Pointer(&np)), 0, 0, uintptr(unsafe.Pointer(&opts[0])),
			uintptr(unsafe.Pointer(&obj32)), uintptr(ptr(p32)))
		for i, v := range p32 {
			part[i] = int64(v)
		}
		objval = int64(obj32)
	}
	if rc != metisOK {
		names := map[int]string{-2: "METIS_ERROR_INPUT", -3: "METIS_ERROR_MEMORY", -4: "METIS_ERROR"}
		return nil, 0, fmt.Errorf("%w: METIS_PartGraphKway (%d vertices, %d parts, ncon %d): %s (%d)", ErrMETIS, n, nparts, ncon, names[rc], rc)
	}
	return part, objval, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
