package engerr

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

var sentinels = map[string]error{
	"ErrShape":          ErrShape,
	"ErrDType":          ErrDType,
	"ErrIndex":          ErrIndex,
	"ErrDevice":         ErrDevice,
	"ErrArgument":       ErrArgument,
	"ErrCUDA":           ErrCUDA,
	"ErrNotImplemented": ErrNotImplemented,
	"ErrOutOfMemory":    ErrOutOfMemory,
}

func TestSentinelsIsAs(t *testing.T) {
	for name, kind := range sentinels {
		err := New(kind, "tensor", "MatMul", "bad %d", 3)
		if !errors.Is(err, kind) {
			t.Errorf("%s: errors.Is(New(%s), %s) is false", name, name, name)
		}
		for other, k := range sentinels {
			if other != name && errors.Is(err, k) {
				t.Errorf("%s: errors.Is(err, %s) is true", name, other)
			}
		}
		wrapped := fmt.Errorf("loading: %w", err)
		var e *Error
		if !errors.Is(wrapped, kind) || !errors.As(wrapped, &e) || e.Op != "MatMul" || e.Pkg != "tensor" || e.Kind != kind {
			t.Errorf("%s: Is/As through a wrapper: %v, %+v", name, wrapped, e)
		}
		if got := err.Error(); got != "tensor.MatMul: bad 3" {
			t.Errorf("%s: Error() = %q", name, got)
		}
	}
}

func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		e    *Error
		want string
	}{
		{&Error{Pkg: "nn", Op: "SAGEConv.Forward", Msg: "m"}, "nn.SAGEConv.Forward: m"},
		{&Error{Pkg: "graph", Msg: "no node data named \"x\""}, "graph: no node data named \"x\""},
		{&Error{Op: "LoadOpenBLAS", Msg: "m"}, "LoadOpenBLAS: m"},
		{&Error{Msg: "m"}, "m"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: Error() = %q, want %q", c.e, got, c.want)
		}
	}
}

func TestNewKindParent(t *testing.T) {
	errConfig := NewKind("memplan: invalid config", ErrArgument)
	err := fmt.Errorf("%w: BatchSize -1", errConfig)
	if !errors.Is(err, errConfig) || !errors.Is(err, ErrArgument) || errors.Is(err, ErrShape) {
		t.Errorf("kind with a parent: Is(config) %v Is(argument) %v Is(shape) %v",
			errors.Is(err, errConfig), errors.Is(err, ErrArgument), errors.Is(err, ErrShape))
	}
	if err.Error() != "memplan: invalid config: BatchSize -1" {
		t.Errorf("text %q", err)
	}
	if errors.Is(ErrArgument, errConfig) {
		t.Error("the parent is the child")
	}
}

// repanic runs Catch(f) and returns what it panicked with, and the stack at
// the point of recovery (which still holds the frames of the panic).
func repanic(f func()) (r any, stack string, err error) {
	defer func() {
		r = recover()
		stack = string(debug.Stack())
	}()
	err = Catch(f)
	return nil, "", err
}

//go:noinline
func derefNil(p *Error) string { return p.Msg }

func TestCatchConvertsEngineErrors(t *testing.T) {
	for name, f := range map[string]func(){
		"Panicf":         func() { Panicf(ErrShape, "tensor", "MatMul", "shapes %v and %v", 1, 2) },
		"wrapped Error":  func() { panic(fmt.Errorf("in a callback: %w", New(ErrShape, "nn", "Linear", "x"))) },
		"wrapped kind":   func() { panic(fmt.Errorf("RowNormalize: %w", ErrShape)) },
		"package kind":   func() { panic(fmt.Errorf("x: %w", NewKind("state dict mismatch", nil))) },
		"Error, no kind": func() { panic(&Error{Pkg: "tensor", Op: "LoadOpenBLAS", Msg: "not found"}) },
	} {
		r, _, err := repanic(f)
		if r != nil || err == nil {
			t.Errorf("%s: Catch returned %v and panicked with %v", name, err, r)
		}
	}
	_, _, err := repanic(func() { Panicf(ErrArgument, "sampling", "NeighborSampler", "Fanouts[0] = %d", -2) })
	var e *Error
	if !errors.Is(err, ErrArgument) || !errors.As(err, &e) || e.Pkg != "sampling" || err.Error() != "sampling.NeighborSampler: Fanouts[0] = -2" {
		t.Errorf("Catch(Panicf) = %v", err)
	}
	if r, _, err := repanic(func() {}); r != nil || err != nil {
		t.Errorf("Catch of a function that returns: %v, %v", err, r)
	}
}

func TestCatchRepanicsBugs(t *testing.T) {
	// A runtime error: the same value, and the stack still shows where it
	// happened.
	r, stack, err := repanic(func() { derefNil(nil) })
	re, ok := r.(runtime.Error)
	if !ok || err != nil {
		t.Fatalf("nil dereference: Catch returned %v, panicked with %v (%T)", err, r, r)
	}
	if !strings.Contains(re.Error(), "nil pointer dereference") {
		t.Errorf("runtime error %q", re)
	}
	if !strings.Contains(stack, "derefNil") {
		t.Errorf("the stack at recovery lost the frame of the panic:\n%s", stack)
	}

	// An index out of a slice's range is a bug too, even though it reads
	// like ErrIndex.
	r, _, _ = repanic(func() {
		s := []int{1}
		i := 3
		_ = s[i]
	})
	if _, ok := r.(runtime.Error); !ok {
		t.Errorf("slice index: panicked with %v (%T)", r, r)
	}

	// Plain values and foreign errors come back identical.
	foreign := errors.New("not an engine error")
	sentinel := &struct{ n int }{7}
	for name, v := range map[string]any{"string": "boom", "error": foreign, "pointer": sentinel, "int": 3} {
		r, _, err := repanic(func() { panic(v) })
		if r != v || err != nil {
			t.Errorf("%s: Catch returned %v, panicked with %v, want the same %v", name, err, r, v)
		}
	}

	// panic(nil) is a *runtime.PanicNilError since Go 1.21: a bug.
	r, _, _ = repanic(func() { panic(nil) })
	if _, ok := r.(*runtime.PanicNilError); !ok {
		t.Errorf("panic(nil): panicked with %v (%T)", r, r)
	}
}

func TestIsEngine(t *testing.T) {
	for v, want := range map[any]bool{
		"x":                              false,
		3:                                false,
		errors.New("x"):                  false,
		ErrIndex:                         true,
		New(nil, "graph", "", "m"):       true,
		fmt.Errorf("a: %w", ErrArgument): true,
	} {
		if got := IsEngine(v); got != want {
			t.Errorf("IsEngine(%v) = %v, want %v", v, got, want)
		}
	}
}
