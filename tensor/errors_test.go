package tensor

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

// catchAny runs f and returns the error it panicked with, whatever it is
// (Catch lets only engine errors through), for tests of what an op does
// when a user's function panics.
func catchAny(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err, _ = r.(error)
		}
	}()
	f()
	return nil
}

func TestSentinelsAreTheFamilys(t *testing.T) {
	// The same values, so errors.Is(err, tensor.ErrShape) holds for a shape
	// error raised by any engine package.
	for name, c := range map[string][2]error{
		"ErrShape":          {ErrShape, engerr.ErrShape},
		"ErrDType":          {ErrDType, engerr.ErrDType},
		"ErrIndex":          {ErrIndex, engerr.ErrIndex},
		"ErrDevice":         {ErrDevice, engerr.ErrDevice},
		"ErrArgument":       {ErrArgument, engerr.ErrArgument},
		"ErrCUDA":           {ErrCUDA, engerr.ErrCUDA},
		"ErrNotImplemented": {ErrNotImplemented, engerr.ErrNotImplemented},
		"ErrOutOfMemory":    {ErrOutOfMemory, engerr.ErrOutOfMemory},
	} {
		if c[0] != c[1] {
			t.Errorf("tensor.%s is not engerr.%s", name, name)
		}
	}
	err := engerr.New(engerr.ErrShape, "nn", "Linear.Forward", "x has 3 columns")
	var te *Error
	if !errors.Is(err, ErrShape) || !errors.As(err, &te) || te.Pkg != "nn" {
		t.Errorf("an nn error is not a tensor.Error of kind ErrShape: %v", err)
	}
}

func TestCatchOpPanic(t *testing.T) {
	err := Catch(func() { MatMul(Zeros(2, 3), Zeros(4, 5)) })
	var te *Error
	if !errors.Is(err, ErrShape) || !errors.As(err, &te) || te.Pkg != "tensor" || te.Op != "MatMul" ||
		!strings.HasPrefix(err.Error(), "tensor.MatMul: ") {
		t.Errorf("Catch(MatMul) = %v", err)
	}
}

func TestCatchRepanicsRuntimeError(t *testing.T) {
	var r any
	func() {
		defer func() { r = recover() }()
		_ = Catch(func() {
			var x *Tensor
			x.Shape() // nil dereference: a bug, not misuse
		})
	}()
	if _, ok := r.(runtime.Error); !ok {
		t.Fatalf("Catch of a nil dereference: panicked with %v (%T), want the runtime.Error", r, r)
	}
	boom := errors.New("boom")
	func() {
		defer func() { r = recover() }()
		_ = Catch(func() { panic(boom) })
	}()
	if r != boom {
		t.Errorf("Catch of a foreign error: panicked with %v, want the same value", r)
	}
}

// TestNilOperandsAreArgumentErrors checks that a nil operand is an
// ErrArgument naming it, not a runtime nil dereference.
func TestNilOperandsAreArgumentErrors(t *testing.T) {
	x := Ones(2, 2)
	adj := &Adj{NumSrc: 2, NumDst: 2, Indptr: []int64{0, 1, 2}, Indices: []int64{1, 0}}
	for name, f := range map[string]func(){
		"Add b":         func() { Add(x, nil) },
		"MatMul a":      func() { MatMul(nil, x) },
		"IndexSelect":   func() { IndexSelect(x, nil) },
		"IndexAdd":      func() { IndexAdd(2, nil, x) },
		"SpMM adj":      func() { SpMM(nil, x, nil, "sum") },
		"SpMM u":        func() { SpMM(adj, nil, nil, "sum") },
		"SDDMM rhs":     func() { SDDMM(adj, x, nil, "add") },
		"EdgeSoftmax s": func() { EdgeSoftmax(adj, nil) },
	} {
		if err := Catch(f); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "is nil") {
			t.Errorf("%s: %v, want ErrArgument naming the nil argument", name, err)
		}
	}
	if err := Catch(nil); !errors.Is(err, ErrArgument) {
		t.Errorf("Catch(nil): %v", err)
	}
}
