package dist

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// childEnv marks a test process started under mpirun by TestMPI.
const childEnv = "GNNREPL_DIST_TEST_CHILD"

// TestMPI re-executes this test binary under `mpirun --allow-run-as-root
// --oversubscribe -np 2` and runs TestMPIChild* in both ranks; it skips when
// mpirun is not installed.
func TestMPI(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in an MPI child")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun not found (apt-get install openmpi-bin libopenmpi3): the MPI tests need an MPI launcher")
	}
	if _, err := loadMPI(); err != nil {
		t.Skipf("mpirun found but no MPI library: %v", err)
	}
	for _, np := range []int{2, 4} {
		cmd := exec.Command(mpirun, "--allow-run-as-root", "--oversubscribe", "-np", fmt.Sprint(np),
			os.Args[0], "-test.run", "^TestMPIChild", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"=1", "OMPI_MCA_btl=self,vader", "OMPI_MCA_rmaps_base_oversubscribe=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		s := out.String()
		if err != nil || strings.Contains(s, "--- FAIL") || !strings.Contains(s, "PASS") {
			t.Fatalf("mpirun -np %d: %v\n%s", np, err, s)
		}
		// Every rank runs the collectives; the data-parallel child skips on
		// every rank alike when the shared data folder is absent.
		coll := strings.Count(s, "--- PASS: TestMPIChildCollectives")
		ddp := strings.Count(s, "--- PASS: TestMPIChildDataParallel")
		skipped := strings.Count(s, "--- SKIP: TestMPIChildDataParallel")
		if coll != np || ddp+skipped != np || ddp != 0 && skipped != 0 {
			t.Fatalf("mpirun -np %d: collectives passed on %d ranks, data parallel passed on %d and skipped on %d\n%s", np, coll, ddp, skipped, s)
		}
		t.Logf("mpirun -np %d:\n%s", np, s)
	}
}

func mpiChild(t *testing.T) *Comm {
	t.Helper()
	if os.Getenv(childEnv) == "" {
		t.Skip("runs under mpirun, started by TestMPI")
	}
	c, err := Init()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMPIChildCollectives(t *testing.T) {
	c := mpiChild(t)
	r, n := c.Rank(), c.Size()
	t.Logf("%v", c)
	if err := c.Barrier(); err != nil {
		t.Fatal(err)
	}
	// float32 sum and avg: exact for small integers.
	f := []float32{float32(r), float32(10 * r), 1}
	if err := c.AllReduceFloat32s(f, "sum"); err != nil {
		t.Fatal(err)
	}
	s := float32(n * (n - 1) / 2)
	if f[0] != s || f[1] != 10*s || f[2] != float32(n) {
		t.Fatalf("sum: %v", f)
	}
	i := []int64{int64(r) << 40, -int64(r)}
	if err := c.AllReduceInt64s(i, "sum"); err != nil {
		t.Fatal(err)
	}
	if i[0] != int64(s)<<40 || i[1] != -int64(s) {
		t.Fatalf("int64 sum: %v", i)
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float16, tensor.BFloat16, tensor.Int64} {
		x := tensor.FromFloat32([]float32{float32(r + 1), 2, -3}, 3).Cast(dt)
		if err := c.AllReduce(x, "max"); err != nil {
			t.Fatal(err)
		}
		y := tensor.FromFloat32([]float32{float32(r + 1), 2, -3}, 3).Cast(dt)
		if err := c.AllReduce(y, "sum"); err != nil {
			t.Fatal(err)
		}
		got := x.Cast(tensor.Float32).Float32s()
		gs := y.Cast(tensor.Float32).Float32s()
		if got[0] != float32(n) || got[1] != 2 || gs[0] != float32(n*(n+1)/2) || gs[1] != float32(2*n) || gs[2] != float32(-3*n) {
			t.Fatalf("%v: max %v sum %v", dt, got, gs)
		}
	}
	// Broadcast from the last rank.
	b := tensor.FromInt64([]int64{int64(r), 7}, 2)
	if err := c.Broadcast(b, n-1); err != nil {
		t.Fatal(err)
	}
	if b.Int64s()[0] != int64(n-1) {
		t.Fatalf("broadcast: %v", b.Int64s())
	}
	// AllGather with different row counts per rank.
	rows := r + 1
	g := tensor.Full(float32(r), rows, 2)
	all, err := c.AllGather(g)
	if err != nil {
		t.Fatal(err)
	}
	if all.Size(0) != n*(n+1)/2 || all.Size(1) != 2 || all.Float32s()[len(all.Float32s())-1] != float32(n-1) {
		t.Fatalf("allgather: %v", all)
	}
	// AllToAllV: rank r sends d+1 copies of 100*r+d to rank d.
	var send []int64
	var counts []int
	for d := 0; d < n; d++ {
		for k := 0; k <= d; k++ {
			send = append(send, int64(100*r+d))
		}
		counts = append(counts, d+1)
	}
	recv, rc, err := c.AllToAllVInt64s(send, counts)
	if err != nil {
		t.Fatal(err)
	}
	if len(recv) != n*(r+1) {
		t.Fatalf("alltoallv: %v %v", recv, rc)
	}
	for src := 0; src < n; src++ {
		if rc[src] != r+1 || recv[src*(r+1)] != int64(100*src+r) {
			t.Fatalf("alltoallv from %d: %v %v", src, recv, rc)
		}
	}
	tt, trc, err := c.AllToAllV(tensor.Full(float32(r), n, 3), ones(n))
	if err != nil || tt.Size(0) != n || trc[0] != 1 || tt.At(n-1, 2) != float64(n-1) {
		t.Fatalf("AllToAllV tensor: %v %v %v", tt, trc, err)
	}
	// Send / Recv around a ring.
	if n > 1 {
		out := []float32{float32(r), 0.5}
		in := make([]float32, 2)
		next, prev := (r+1)%n, (r+n-1)%n
		if r%2 == 0 {
			err = errors.Join(c.SendFloat32s(out, next, 3), c.RecvFloat32s(in, prev, 3))
		} else {
			err = errors.Join(c.RecvFloat32s(in, prev, 3), c.SendFloat32s(out, next, 3))
		}
		if err != nil || in[0] != float32(prev) {
			t.Fatalf("ring: %v %v", in, err)
		}
	}
	// Mismatched sizes: an error on every rank, no hang.
	bad := make([]float32, 3+r)
	err = c.AllReduceFloat32s(bad, "sum")
	if n > 1 && (err == nil || !errors.Is(err, ErrMPI) || !strings.Contains(err.Error(), fmt.Sprintf("rank %d of %d", r, n))) {
		t.Fatalf("mismatched sizes: %v", err)
	}
	t.Logf("mismatch error: %v", err)
	// A Go runtime panic stays recoverable after MPI_Init (MPI's signal
	// handlers do not take over SIGSEGV).
	func() {
		defer func() { recover() }()
		var p *int
		_ = *p
	}()
}

func ones(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// TestMain finalizes MPI in the ranks TestMPI starts (a failing rank
// aborts the job).
func TestMain(m *testing.M) {
	code := m.Run()
	if os.Getenv(childEnv) != "" || os.Getenv(scaleBenchEnv) != "" {
		Shutdown(code != 0)
	}
	os.Exit(code)
}
