package dist

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestSingleProcess: outside mpirun, Init is an ErrNoMPI error naming the
// launcher and World falls back to a size-1 communicator whose collectives
// are the identity.
func TestSingleProcess(t *testing.T) {
	if _, _, _, launched := EnvRank(); launched {
		t.Skip("running under an MPI launcher")
	}
	if _, err := Init(); !errors.Is(err, ErrNoMPI) || !strings.Contains(err.Error(), "mpirun") {
		t.Fatalf("Init outside mpirun: %v", err)
	}
	c := World()
	if c.Rank() != 0 || c.Size() != 1 || c.IsMPI() || !strings.Contains(c.Backend(), "single process") {
		t.Fatalf("World: %v", c)
	}
	if err := c.Barrier(); err != nil {
		t.Fatal(err)
	}
	x := tensor.FromFloat32([]float32{1, 2, 3}, 3)
	for _, op := range []string{"sum", "avg", "max", "min"} {
		if err := c.AllReduce(x, op); err != nil || x.Float32s()[2] != 3 {
			t.Fatalf("%s: %v %v", op, x, err)
		}
	}
	if err := c.AllReduce(x, "prod"); !errors.Is(err, ErrArgument) {
		t.Errorf("op prod: %v", err)
	}
	if err := c.AllReduce(tensor.FromInt64([]int64{1}, 1), "avg"); !errors.Is(err, ErrArgument) {
		t.Errorf("int64 avg: %v", err)
	}
	h := x.Cast(tensor.BFloat16)
	if err := c.AllReduce(h, "sum"); err != nil || h.Cast(tensor.Float32).Float32s()[1] != 2 {
		t.Fatalf("bfloat16: %v %v", h, err)
	}
	if err := c.Broadcast(x, 1); !errors.Is(err, ErrArgument) {
		t.Errorf("root 1 of 1: %v", err)
	}
	g, err := c.AllGather(tensor.Ones(2, 3))
	if err != nil || g.Size(0) != 2 || g.Size(1) != 3 {
		t.Fatalf("AllGather: %v %v", g, err)
	}
	r, counts, err := c.AllToAllVInt64s([]int64{4, 5}, []int{2})
	if err != nil || len(r) != 2 || counts[0] != 2 {
		t.Fatalf("AllToAllV: %v %v %v", r, counts, err)
	}
	if _, _, err := c.AllToAllVInt64s([]int64{4, 5}, []int{1}); !errors.Is(err, ErrShape) {
		t.Errorf("counts not adding up: %v", err)
	}
	if err := c.SendFloat32s([]float32{1}, 0, 0); !errors.Is(err, ErrArgument) {
		t.Errorf("Send in one process: %v", err)
	}
	if c.Shard().Size != 1 {
		t.Errorf("Shard: %v", c.Shard())
	}
	Shutdown(false) // no MPI: a no-op
}

// TestEnvRank reads each launcher's variables, never mixing two.
func TestEnvRank(t *testing.T) {
	for _, l := range launchers {
		for _, v := range append(append(append([]string{l.requires}, l.rank...), l.size...), l.local...) {
			if v != "" {
				t.Setenv(v, "")
				os.Unsetenv(v)
			}
		}
	}
	if _, _, _, ok := EnvRank(); ok {
		t.Fatal("launched with no variables")
	}
	check := func(what string, r, s, l int) {
		t.Helper()
		if gr, gs, gl, ok := EnvRank(); gr != r || gs != s || gl != l || !ok {
			t.Fatalf("%s: rank %d size %d local %d launched %v; want %d %d %d", what, gr, gs, gl, ok, r, s, l)
		}
	}
	// sbatch's batch script: Slurm variables without a job step.
	t.Setenv("SLURM_PROCID", "0")
	t.Setenv("SLURM_NTASKS", "4")
	t.Setenv("SLURM_LOCALID", "0")
	if _, _, _, ok := EnvRank(); ok {
		t.Fatal("sbatch's batch script counted as launched")
	}
	// srun -n 4: a job step.
	t.Setenv("SLURM_STEP_ID", "0")
	t.Setenv("SLURM_PROCID", "3")
	t.Setenv("SLURM_LOCALID", "1")
	check("srun", 3, 4, 1)
	t.Setenv("SLURM_STEP_NUM_TASKS", "2")
	t.Setenv("SLURM_PROCID", "1")
	check("srun step of 2 tasks in a 4-task job", 1, 2, 1)
	// MPICH's Hydra inside the allocation: PMI's values, not Slurm's.
	t.Setenv("PMI_RANK", "5")
	t.Setenv("PMI_SIZE", "8")
	t.Setenv("MPI_LOCALRANKID", "2")
	check("MPICH's Hydra", 5, 8, 2)
	os.Unsetenv("MPI_LOCALRANKID")
	t.Setenv("PMI_LOCAL_RANK", "3")
	check("PMI_LOCAL_RANK", 5, 8, 3)
	// Open MPI first.
	t.Setenv("OMPI_COMM_WORLD_RANK", "0")
	t.Setenv("OMPI_COMM_WORLD_SIZE", "2")
	t.Setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0")
	check("Open MPI", 0, 2, 0)
	if name, _, _, _, _, _ := envLaunch(); name != "Open MPI's mpirun" {
		t.Errorf("launcher %q", name)
	}
	// Without a local rank variable, one rank is its own local rank 0.
	for _, v := range []string{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_RANK", "PMI_SIZE", "PMI_LOCAL_RANK", "SLURM_STEP_ID"} {
		os.Unsetenv(v)
	}
	t.Setenv("PMIX_RANK", "0")
	check("PMIx with the Slurm step's task count", 0, 2, 1)
	// Init outside any launcher names srun and mpirun.
	os.Unsetenv("PMIX_RANK")
	if _, err := Init(); !errors.Is(err, ErrNoMPI) || !strings.Contains(err.Error(), "srun -n N") {
		t.Errorf("Init outside a launcher: %v", err)
	}
}

// TestMPILibrary: when libmpi is installed, its version is read without
// initializing MPI.
func TestMPILibrary(t *testing.T) {
	m, err := loadMPI()
	if err != nil {
		t.Skipf("no MPI library: %v", err)
	}
	if m.version == "" || (m.impl != implOpenMPI && m.impl != implMPICH) {
		t.Fatalf("%s: version %q, implementation %q", m.path, m.version, m.impl)
	}
	t.Logf("%s: %s", m.path, m.version)
}
