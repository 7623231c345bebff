package dist

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/internal/dynlib"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestNCCLMissing: without libnccl the error names the library, the
// search and the variables that change it.
func TestNCCLMissing(t *testing.T) {
	_, err := openNCCL(filepath.Join(t.TempDir(), "libnccl.so.2"))
	if err == nil || !errors.Is(err, ErrNoNCCL) {
		t.Fatalf("a missing override: %v", err)
	}
	for _, want := range []string{"libnccl.so.2", "GNNREPL_NCCL_LIB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	t.Setenv("GNNREPL_NCCL_LIB_PATH", t.TempDir())
	if _, err := openNCCL(""); err == nil {
		t.Skip("this machine has libnccl.so.2 in the loader's path or the usual directories")
	} else if !errors.Is(err, ErrNoNCCL) || !strings.Contains(err.Error(), "libnccl.so.2") || !strings.Contains(err.Error(), "GNNREPL_NCCL_LIB_PATH") || !strings.Contains(err.Error(), "directories") {
		t.Errorf("no NCCL anywhere: %v", err)
	} else {
		t.Logf("%v", err)
	}
}

// TestNCCLConstants: the ncclUniqueId size and the dtype and op values
// are nccl.h's (NCCL 2.10+ documentation, "Types").
func TestNCCLConstants(t *testing.T) {
	if s := unsafe.Sizeof(ncclUniqueID{}); s != 128 || NCCLUniqueIDBytes != 128 {
		t.Errorf("ncclUniqueId is %d bytes, NCCLUniqueIDBytes %d; want 128 (NCCL_UNIQUE_ID_BYTES)", s, NCCLUniqueIDBytes)
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"ncclInt8", ncclInt8, 0}, {"ncclUint8", ncclUint8, 1}, {"ncclInt32", ncclInt32, 2}, {"ncclUint32", ncclUint32, 3},
		{"ncclInt64", ncclInt64, 4}, {"ncclUint64", ncclUint64, 5}, {"ncclFloat16", ncclFloat16, 6}, {"ncclFloat32", ncclFloat32, 7},
		{"ncclFloat64", ncclFloat64, 8}, {"ncclBfloat16", ncclBfloat16, 9},
		{"ncclSum", ncclSum, 0}, {"ncclProd", ncclProd, 1}, {"ncclMax", ncclMax, 2}, {"ncclMin", ncclMin, 3}, {"ncclAvg", ncclAvg, 4},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d; nccl.h has %d", c.name, c.got, c.want)
		}
	}
	if ncclResults[4] != "ncclInvalidArgument" || ncclResults[6] != "ncclRemoteError" || len(ncclResults) != 8 {
		t.Errorf("ncclResult_t names: %v", ncclResults)
	}
	for dt, want := range map[tensor.DType]int32{tensor.Float32: 7, tensor.Float16: 6, tensor.BFloat16: 9, tensor.Int64: 4, tensor.Int8: 0, tensor.Bool: 1} {
		if got, ok := ncclType(dt); !ok || got != want {
			t.Errorf("ncclType(%v) = %d, %v; want %d", dt, got, ok, want)
		}
	}
	if _, err := ncclOp("avg", tensor.Int64); err == nil {
		t.Error("avg of int64 accepted")
	}
	if _, err := ncclOp("xor", tensor.Float32); err == nil || !strings.Contains(err.Error(), `"xor"`) {
		t.Errorf("op xor: %v", err)
	}
	for code, want := range map[int]string{22105: "2.21.5", 21003: "2.10.3", 2708: "2.7.8"} {
		if got := ncclVersionString(code); got != want {
			t.Errorf("ncclVersionString(%d) = %s, want %s", code, got, want)
		}
	}
}

// TestNCCLFakeLibrary checks the binding's C ABI against a stand-in
// libnccl.so.2 built from testdata/fakenccl.c with the system's C compiler
// (skipped without one): the by-value ncclUniqueId of ncclCommInitRank,
// the argument order of the collectives, error strings, group calls.
func TestNCCLFakeLibrary(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the stand-in libnccl")
	}
	lib := filepath.Join(t.TempDir(), "libnccl.so.2")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", lib, "testdata/fakenccl.c").CombinedOutput(); err != nil {
		t.Skipf("building the stand-in libnccl: %v\n%s", err, out)
	}
	l, err := openNCCL(lib)
	if err != nil {
		t.Fatal(err)
	}
	if v := ncclVersionString(l.version); v != "2.21.5" {
		t.Errorf("version %s", v)
	}
	h, _, err := dynlib.Open(lib, nil)
	if err != nil {
		t.Fatal(err)
	}
	recSym, err := dynlib.Sym(h, "fakeRecord")
	if err != nil {
		t.Fatal(err)
	}
	record := func() [8]int64 {
		var r [8]int64
		dynlib.Call(recSym, uintptr(unsafe.Pointer(&r[0])))
		return r
	}

	var id ncclUniqueID
	if rc := l.getUniqueID(&id); rc != 0 || id.Internal[127] != 127^0x5a {
		t.Fatalf("ncclGetUniqueId: %d %v", rc, id.Internal[120:])
	}
	var comm uintptr
	if rc := l.commInitRank(&comm, 1, id, 0); rc != 0 || comm == 0 {
		t.Fatalf("ncclCommInitRank with the id by value: %s", l.errorString(rc))
	}
	bad := id
	bad.Internal[100]++
	var c2 uintptr
	if rc := l.commInitRank(&c2, 1, bad, 0); rc != 4 || !strings.Contains(l.errorString(rc), "ncclInvalidArgument (invalid argument (fake))") {
		t.Errorf("a corrupted id: %d %s", rc, l.errorString(rc))
	}

	buf := []float32{1, 2, 3}
	p := uintptr(unsafe.Pointer(&buf[0]))
	if rc := l.allReduce(p, p, 3, ncclFloat32, ncclAvg, comm, 0x1234); rc != 0 {
		t.Fatalf("ncclAllReduce: %s", l.errorString(rc))
	}
	if r := record(); r[0] != 3 || r[1] != ncclFloat32 || r[2] != ncclAvg || r[3] != 0x1234 || r[4] != 0 || buf[2] != 3 {
		t.Errorf("ncclAllReduce received count %d dtype %d op %d stream %#x rank %d; buffer %v", r[0], r[1], r[2], r[3], r[4], buf)
	}
	if rc := l.broadcast(p, p, 2, ncclFloat16, 0, comm, 0x99); rc != 0 {
		t.Fatal(l.errorString(rc))
	}
	if r := record(); r[0] != 2 || r[1] != ncclFloat16 || r[2] != 0 || r[3] != 0x99 {
		t.Errorf("ncclBroadcast received %v", r)
	}
	if rc := l.allGather(p, p, 5, ncclBfloat16, comm, 0x77); rc != 0 {
		t.Fatal(l.errorString(rc))
	}
	if r := record(); r[0] != 5 || r[1] != ncclBfloat16 || r[3] != 0x77 {
		t.Errorf("ncclAllGather received %v", r)
	}
	comms := make([]uintptr, 3)
	devs := []int32{0, 1, 2}
	if rc := l.commInitAll(&comms[0], 3, &devs[0]); rc != 0 || comms[2] == 0 {
		t.Fatalf("ncclCommInitAll: %s", l.errorString(rc))
	}
	// One process driving three "GPUs": a group of all-reduces; the fake
	// multiplies by the number of ranks (the sum of equal inputs).
	l.groupStart()
	for _, c := range comms {
		if rc := l.allReduce(p, p, 3, ncclFloat32, ncclSum, c, 0); rc != 0 {
			t.Fatal(l.errorString(rc))
		}
	}
	l.groupEnd()
	if r := record(); r[4] != 2 || r[5] != 1 || r[6] != 1 || buf[0] != 27 {
		t.Errorf("group: last rank %d, group start/end %d/%d, buffer %v", r[4], r[5], r[6], buf)
	}
	if rc := l.commDestroy(comm); rc != 0 {
		t.Error(l.errorString(rc))
	}
}

// TestNCCLArguments: bad input to the NCCL API is an error before any
// library or device is needed.
func TestNCCLArguments(t *testing.T) {
	if _, err := NewNCCLGroup(nil); !errors.Is(err, ErrArgument) {
		t.Errorf("no devices: %v", err)
	}
	if _, err := NewNCCLGroup([]string{"cuda:0", "cuda:0"}); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a device twice: %v", err)
	}
	if _, err := NewNCCLGroup([]string{"cpu"}); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), `"cpu"`) {
		t.Errorf("cpu: %v", err)
	}
	var n *NCCL
	if err := n.AllReduce(tensor.Ones(2), "sum"); !errors.Is(err, ErrArgument) {
		t.Errorf("nil communicator: %v", err)
	}
	if _, _, err := tensor.Ones(2).CUDAPointer(); err == nil || !strings.Contains(err.Error(), "not on a CUDA device") {
		t.Errorf("CUDAPointer of a CPU tensor: %v", err)
	}
}

// TestNCCLGPU initializes a one-rank NCCL communicator on cuda:0 and
// all-reduces, broadcasts and all-gathers a device tensor with it, alone
// and as a one-device group (ncclCommInitAll). It needs a GPU and
// libnccl.so.2 (scripts/gpu-check.sh runs it on the GPU machine).
func TestNCCLGPU(t *testing.T) {
	if ok, why := tensor.CUDAStatus(); !ok {
		t.Skipf("no CUDA GPU: %s", why)
	}
	v, path, err := NCCLVersion()
	if err != nil {
		t.Skipf("a GPU but no NCCL: %v", err)
	}
	c := &Comm{size: 1, note: "test"}
	n, err := NewNCCL(c, "cuda:0")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Destroy()
	x, err := tensor.FromFloat32([]float32{1, -2, 3.5, 4}, 2, 2).To("cuda:0")
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"sum", "avg", "max", "min", "prod"} {
		if err := n.AllReduce(x, op); err != nil {
			t.Fatal(err)
		}
	}
	if got := x.ToCPU().Float32s(); got[1] != -2 || got[2] != 3.5 {
		t.Fatalf("all-reduce over one rank changed the tensor: %v", got)
	}
	h, _ := tensor.FromFloat32([]float32{1, 2}, 2).Cast(tensor.BFloat16).To("cuda:0")
	if err := n.AllReduce(h, "sum"); err != nil {
		t.Fatal(err)
	}
	if err := n.Broadcast(x, 0); err != nil {
		t.Fatal(err)
	}
	g, err := n.AllGather(x)
	if err != nil || g.Size(0) != 2 || g.ToCPU().Float32s()[3] != 4 {
		t.Fatalf("all-gather: %v %v", g, err)
	}
	if err := n.AllReduce(tensor.Ones(2), "sum"); err == nil || !strings.Contains(err.Error(), "on cpu") {
		t.Errorf("a CPU tensor: %v", err)
	}
	grp, err := NewNCCLGroup([]string{"cuda:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer grp.Destroy()
	if err := grp.AllReduce([]*tensor.Tensor{x}, "sum"); err != nil {
		t.Fatal(err)
	}
	if got := x.ToCPU().Float32s(); got[3] != 4 {
		t.Fatalf("group all-reduce: %v", got)
	}
	t.Logf("SUMMARY nccl: NCCL %s (%s): ncclCommInitRank and ncclCommInitAll on cuda:0, all-reduce (5 ops, float32 and bfloat16), broadcast, all-gather of device tensors: ok", v, path)
}
