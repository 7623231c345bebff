package tensor

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// withBudget sets the host memory budget to what live tensors hold now
// plus extra bytes, for the rest of the test.
func withBudget(t *testing.T, extra int64) {
	t.Helper()
	collectHost()
	prev := SetMemoryLimit(hostCharged.Load() + extra)
	t.Cleanup(func() { SetMemoryLimit(prev) })
}

// TestMemoryLimit: an allocation beyond the host memory budget panics with
// ErrOutOfMemory naming the request, the budget and the use; tensors that
// become unreachable count back, so the same allocation then succeeds.
func TestMemoryLimit(t *testing.T) {
	withBudget(t, 60<<20)
	a := Zeros(2048, 4096) // 32 MiB, kept
	err := Catch(func() { Empty(Float32, 3072, 4096) })
	if !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("48 MiB over a 60 MiB budget holding 32 MiB: %v", err)
	}
	for _, want := range []string{"tensor.Empty: CPU out of memory: tried to allocate 48.0 MiB (float32 [3072 4096])",
		"the host memory budget is", "32.0 MiB is in use", "tensor.SetMemoryLimit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// An op's output is refused too.
	err = Catch(func() { Add(a, a) })
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "tried to allocate 32.0 MiB") {
		t.Errorf("an op's output over the budget: %v", err)
	}
	t.Logf("%v", err)
	runtime.KeepAlive(a)
	a = nil
	// a is garbage now: the allocation collects it and fits.
	if err := Catch(func() { Empty(Float32, 3072, 4096) }); err != nil {
		t.Errorf("after the 32 MiB tensor became unreachable: %v", err)
	}
	// Many allocations that are each dropped never exceed it.
	for range 20 {
		Zeros(1024, 4096) // 16 MiB of garbage each
	}
	// Memory the caller made (a mapped file, a Go slice) is counted by
	// MemoryAllocated but not charged to the budget.
	wrapped := FromFloat32(make([]float32, 32<<20)) // 128 MiB
	if err := Catch(func() { Zeros(1024, 4096) }); err != nil {
		t.Errorf("with a wrapped 128 MiB slice: %v", err)
	}
	runtime.KeepAlive(wrapped)
}

// TestMemoryLimitSetting: SetMemoryLimit returns the previous setting;
// 0 is the default, a negative value removes the budget.
func TestMemoryLimitSetting(t *testing.T) {
	prev := SetMemoryLimit(1 << 30)
	defer SetMemoryLimit(prev)
	if got := MemoryLimit(); got != 1<<30 {
		t.Errorf("MemoryLimit() = %d after SetMemoryLimit(1 GiB)", got)
	}
	if p := SetMemoryLimit(-5); p != 1<<30 {
		t.Errorf("SetMemoryLimit returned %d, want the previous 1 GiB", p)
	}
	if got := MemoryLimit(); got != 0 {
		t.Errorf("MemoryLimit() = %d with no budget, want 0", got)
	}
	SetMemoryLimit(0)
	if got, def := MemoryLimit(), DefaultMemoryLimit(); got != def {
		t.Errorf("MemoryLimit() = %d after SetMemoryLimit(0), want the default %d", got, def)
	}
	if m := hostMemory(); m > 0 {
		if def := DefaultMemoryLimit(); def <= 0 || def > m/10*9 {
			t.Errorf("default budget %d for %d bytes of memory", def, m)
		}
	}
}

// TestDefaultMemoryLimit: 90% of the smaller known limit.
func TestDefaultMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		limits []int64
		want   int64
	}{
		{[]int64{100 << 30, 0}, 90 << 30},
		{[]int64{100 << 30, 10 << 30}, 9 << 30},
		{[]int64{0, 10 << 30}, 9 << 30},
		{[]int64{0, 0}, 0},
	} {
		if got := defaultMemoryLimit(c.limits...); got != c.want {
			t.Errorf("defaultMemoryLimit(%v) = %d, want %d", c.limits, got, c.want)
		}
	}
}

// TestCgroupMemoryLimit reads cgroup v2 and v1 trees written by the test:
// the smallest limit set on the process's cgroup or one above it counts;
// "max" and v1's 2^63-ish "no limit" are no limit.
func TestCgroupMemoryLimit(t *testing.T) {
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// v2: the job's cgroup says max, its parent 4 GiB.
	root := t.TempDir()
	self := filepath.Join(root, "self")
	write(self, "0::/user/job\n")
	write(filepath.Join(root, "fs", "user", "job", "memory.max"), "max\n")
	write(filepath.Join(root, "fs", "user", "memory.max"), "4294967296\n")
	if got := cgroupMemoryLimit(self, filepath.Join(root, "fs")); got != 4<<30 {
		t.Errorf("v2: %d, want 4 GiB", got)
	}
	// v1: the memory controller's line, the cgroup at 2 GiB, the root unset.
	root = t.TempDir()
	self = filepath.Join(root, "self")
	write(self, "5:cpu,cpuacct:/\n4:memory:/docker/abc\n")
	write(filepath.Join(root, "fs", "memory", "docker", "abc", "memory.limit_in_bytes"), "2147483648\n")
	write(filepath.Join(root, "fs", "memory", "memory.limit_in_bytes"), "9223372036854771712\n")
	if got := cgroupMemoryLimit(self, filepath.Join(root, "fs")); got != 2<<30 {
		t.Errorf("v1: %d, want 2 GiB", got)
	}
	// Nothing set, or no files.
	write(filepath.Join(root, "fs", "memory", "docker", "abc", "memory.limit_in_bytes"), "9223372036854771712\n")
	if got := cgroupMemoryLimit(self, filepath.Join(root, "fs")); got != 0 {
		t.Errorf("v1 unlimited: %d, want 0", got)
	}
	if got := cgroupMemoryLimit(filepath.Join(root, "missing"), root); got != 0 {
		t.Errorf("no cgroup file: %d", got)
	}
}
