// Package dist scales training out over processes and hosts on existing
// engines, opened at run time with github.com/ebitengine/purego so that the
// default gnnrepl binary stays pure Go: MPI for collectives (libmpi: Open
// MPI 4.1 as Debian ships it, libmpi.so.40, fully; MPICH's libmpi.so.12
// through its integer handles), NCCL for CUDA tensors (libnccl.so.2, 2.10
// or later) and METIS for partitioning (libmetis.so.5). Nothing here is a
// home-made network layer.
//
// # Launch
//
// The launcher is MPI's: `mpirun -np 2 gnnrepl run train.go` (as root add
// --allow-run-as-root; --oversubscribe for more ranks than cores), MPICH's
// `mpiexec`, or Slurm's `srun -n N --mpi=pmix gnnrepl run train.go`; the
// Kubernetes MPI Operator's MPIJob runs mpirun (deploy/ in the repository
// has an MPIJob, its image and a README). The script calls dist.World(),
// which initializes MPI when the process was started by a launcher
// (EnvRank: Open MPI's OMPI_COMM_WORLD_*, PMI_RANK / PMI_SIZE of MPICH's
// Hydra, PMIX_RANK, or SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID inside
// an srun step) and otherwise returns a single-process communicator of
// size 1, so the same script runs unchanged as `gnnrepl run train.go`:
// every collective is then the identity and the data-parallel wrapper a
// no-op. dist.Init() is the strict
// form: it returns an ErrNoMPI error instead of falling back. gnnrepl run
// finalizes MPI when the script returns, and aborts the whole job
// (MPI_Abort) when the script of any rank fails, so no rank hangs in a
// collective waiting for a dead one.
//
// # Collectives
//
// Comm has Barrier, Broadcast, AllReduce (sum, avg, max, min over float32,
// float16 and bfloat16 staged in float32, int64), AllGather, AllToAllV and
// Send / Recv, on CPU tensors and on []float32 / []int64. Every exported
// collective first checks that the ranks agree on sizes and dtypes and
// returns an ErrMPI error on every rank when they do not; errors read
// "dist.AllReduce: rank 1 of 2: ...", naming the call, the rank and the MPI
// function.
//
// # Faults and checkpoints
//
// A rank that fails ends the whole job within seconds: a script error or
// panic makes gnnrepl run call MPI_Abort, and a rank that crashes or is
// killed is noticed by mpirun, which ends the others and names the rank.
// A rank that hangs ends the job through the others' collective timeout
// (Comm.SetTimeout, GNNREPL_DIST_TIMEOUT, DefaultTimeout 30 minutes): a
// blocking MPI call that does not return in time prints the call and the
// rank and exits. Comm.SaveCheckpoint writes the training state once per
// job (rank 0, atomically, through package checkpoint, with every rank's
// random generator states) and Comm.LoadCheckpoint restores it on every
// rank, so a restarted job resumes after the last checkpoint and ends
// bit-identically to one that never stopped (examples/ddp_sage.go).
//
// # NCCL
//
// NewNCCL(comm, device) makes an NCCL communicator for one GPU per rank,
// bootstrapped over MPI (rank 0's ncclUniqueId broadcast, then
// ncclCommInitRank); NewNCCLGroup(devices) one process driving several
// GPUs (ncclCommInitAll). Their AllReduce, Broadcast and AllGather work
// on CUDA tensors in place on the device's stream; DataParallel of a model
// on a GPU all-reduces its gradients over NCCL. NCCLVersion says what
// library loads (gnnrepl doctor shows it).
//
// # Data parallel
//
// DataParallel(model, comm) broadcasts rank 0's parameters and
// DDP.SyncGradients averages gradients with bucketed all-reduce after
// backward (torch DDP, DGL use_ddp); LoaderOptions.Shard = comm.Shard()
// gives each rank its share of every epoch's shuffled seeds.
//
// # Partitioning
//
// Partition / PartitionGraph split a graph with METIS k-way or at random
// (DGL's partition_graph), balancing training nodes, with 1-hop halos, id
// maps, one graphstore file per part and a JSON config; LoadPartition
// opens a part.
//
// Errors follow the engine's rule (package tensor): functions return
// *Error values of the kinds ErrNoMPI, ErrMPI, ErrNoNCCL, ErrNCCL,
// ErrNoMETIS, ErrMETIS, ErrCheckpoint, ErrArgument, ErrShape, ErrDType;
// World panics only when a launcher started several ranks and MPI cannot
// start.
package dist
