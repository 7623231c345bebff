package profile

import (
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestCUDATime profiles MatMuls on the GPU: the table gets CUDA time from
// CUDA events, the trace a cuda:0 track and the memory footer the device.
// It runs on a GPU machine (scripts/gpu-check.sh) and skips elsewhere.
func TestCUDATime(t *testing.T) {
	if ok, why := tensor.CUDAStatus(); !ok {
		t.Skipf("no CUDA GPU: %s", why)
	}
	gen := tensor.NewGenerator(1)
	a, err := tensor.Randn(gen, 512, 512).To("cuda")
	if err != nil {
		t.Fatal(err)
	}
	host := tensor.Randn(gen, 64, 64)
	r := Run(func() {
		for i := 0; i < 10; i++ {
			a = tensor.ReLU(tensor.MatMul(a, a))
		}
		tensor.ReLU(host) // a CPU op: no device time
		if err := tensor.Synchronize("cuda"); err != nil {
			t.Error(err)
		}
	})
	if r.DeviceTimingError != "" {
		t.Fatalf("device timing error: %s", r.DeviceTimingError)
	}
	mm := mustStat(t, r, "MatMul")
	if mm.DeviceTotal <= 0 || mm.DeviceCalls < 10 {
		t.Errorf("MatMul CUDA time %v over %d segments, want > 0 over at least 10", mm.DeviceTotal, mm.DeviceCalls)
	}
	relu := mustStat(t, r, "ReLU")
	if relu.DeviceCalls < 10 || relu.DeviceCalls > relu.Calls-1 {
		t.Errorf("ReLU has %d CUDA segments over %d calls, want 10 or more and none for the CPU call", relu.DeviceCalls, relu.Calls)
	}
	tab := r.Table("cuda_time_total", 5)
	if !strings.Contains(tab, "Device total") || !strings.Contains(tab, "cuda:0 allocated") {
		t.Errorf("table lacks the CUDA columns or memory:\n%s", tab)
	}
	trace, err := r.ChromeTrace()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(trace), `"name":"cuda:0"`) {
		t.Errorf("trace has no cuda:0 track")
	}
	for _, e := range r.DeviceEvents {
		if e.Start < 0 || e.Start > r.Wall+r.Wall/2 || e.Dur < 0 {
			t.Errorf("device event %+v outside the profile (wall %v)", e, r.Wall)
			break
		}
	}
	t.Logf("SUMMARY profile: 10 MatMul 512x512 CUDA time %s (wall %s)", FormatDuration(mm.DeviceTotal), FormatDuration(r.Wall))
	t.Log("\n" + tab)
}
