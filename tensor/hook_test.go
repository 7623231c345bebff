package tensor

import (
	"reflect"
	"sync"
	"testing"
)

func TestOpHookNestingAndBackward(t *testing.T) {
	var mu sync.Mutex
	var log []string
	prev := SetOpHook(func(op string) func() {
		mu.Lock()
		log = append(log, "+"+op)
		mu.Unlock()
		return func() {
			mu.Lock()
			log = append(log, "-"+op)
			mu.Unlock()
		}
	})
	defer SetOpHook(prev)

	x := FromFloat32([]float32{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
	y := FromInt64([]int64{0, 1})
	loss := CrossEntropy(x, y)
	loss.Backward()
	SetOpHook(nil)

	got := log
	want := []string{"+CrossEntropy", "+LogSoftmax", "-LogSoftmax", "+NLLLoss", "-NLLLoss", "-CrossEntropy", "+Backward",
		"+NLLLoss.backward", "-NLLLoss.backward", "+LogSoftmax.backward", "-LogSoftmax.backward", "-Backward"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hook calls\n got %v\nwant %v", got, want)
	}
}

func TestSetOpHookReturnsPrevious(t *testing.T) {
	h := OpHook(func(string) func() { return func() {} })
	if p := SetOpHook(h); p != nil {
		t.Fatalf("expected no previous hook")
	}
	if p := SetOpHook(nil); p == nil {
		t.Fatalf("expected the installed hook back")
	}
	if opHook.Load() != nil {
		t.Fatalf("hook still installed")
	}
}

func TestTotalAllocatedBytesGrows(t *testing.T) {
	before := TotalAllocatedBytes("cpu")
	_ = Zeros(10, 10)
	if d := TotalAllocatedBytes("cpu") - before; d < 400 {
		t.Fatalf("TotalAllocatedBytes grew by %d, want >= 400", d)
	}
}

//go:noinline
func hookedNop(x int) int {
	defer hookOp("nop")()
	return x + 1
}

// BenchmarkOpHookOff measures what the hook costs an op when no hook is
// installed: one call of a function whose only work is the bracket.
func BenchmarkOpHookOff(b *testing.B) {
	s := 0
	for i := 0; i < b.N; i++ {
		s = hookedNop(s)
	}
	_ = s
}
