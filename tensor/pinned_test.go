package tensor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestPinnedUploaderDeviceErrors(t *testing.T) {
	for _, dev := range []string{"cpu", "meta", "", "tpu"} {
		if _, err := NewPinnedUploader(dev, 0); !errors.Is(err, ErrDevice) {
			t.Errorf("NewPinnedUploader(%q) = %v, want ErrDevice", dev, err)
		}
	}
	if _, err := NewPinnedUploader("cuda", 17); !errors.Is(err, ErrArgument) {
		t.Errorf("17 slots: %v, want ErrArgument", err)
	}
	if ok, why := CUDAStatus(); !ok {
		_, err := NewPinnedUploader("cuda", 0)
		if err == nil || !strings.Contains(err.Error(), why) || strings.Contains(err.Error(), "cpu only") {
			t.Errorf("without a GPU: %v, want the driver's reason %q", err, why)
		}
	}
}

// TestPinnedUploaderCUDA uploads batches through a two-slot ring (so the
// ring wraps) and reads them back; GPU only.
func TestPinnedUploaderCUDA(t *testing.T) {
	if ok, why := CUDAStatus(); !ok {
		t.Skipf("no CUDA GPU: %s", why)
	}
	u, err := NewPinnedUploader("cuda", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	gen := NewGenerator(3)
	var pend []*PendingUpload
	var want [][]*Tensor
	for b := 0; b < 5; b++ {
		x := Randn(gen, 100+b, 7)
		idx := FromInt64([]int64{int64(b), 3, 1})
		lab := Narrow(FromInt64([]int64{9, 8, 7, 6, 5, 4}), 0, 3+b%3) // a view: offset 0, shorter
		ts := []*Tensor{x, idx, lab, Zeros(0, 4)}
		p, err := u.Start(ts)
		if err != nil {
			t.Fatal(err)
		}
		pend, want = append(pend, p), append(want, ts)
	}
	for b, p := range pend {
		outs, err := p.Ready()
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range outs {
			if o.Device() != "cuda:0" {
				t.Fatalf("batch %d tensor %d on %s", b, i, o.Device())
			}
			got, w := o.ToCPU(), want[b][i]
			if !sameValues(got, w) {
				t.Fatalf("batch %d tensor %d: got %v, want %v", b, i, got, w)
			}
		}
		// The int64 bounds were recorded: an index op checks them without a read.
		sel := IndexSelect(outs[0], outs[1]).ToCPU()
		if !sameValues(sel, IndexSelect(want[b][0], want[b][1])) {
			t.Fatalf("batch %d: IndexSelect with uploaded indices differs", b)
		}
	}
	if _, err := u.Start([]*Tensor{pend[0].outs[0]}); !errors.Is(err, ErrDevice) {
		t.Errorf("Start with a GPU tensor: %v, want ErrDevice", err)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Start(nil); err == nil {
		t.Error("Start after Close succeeded")
	}
}

// sameValues reports whether two CPU tensors have the same dtype, shape and
// values (float32 or int64).
func sameValues(a, b *Tensor) bool {
	if a.DType() != b.DType() || fmt.Sprint(a.Shape()) != fmt.Sprint(b.Shape()) {
		return false
	}
	if a.DType() == Int64 {
		return slices.Equal(a.Int64s(), b.Int64s())
	}
	return slices.Equal(a.Float32s(), b.Float32s())
}
