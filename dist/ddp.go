package dist

import (
	"hash/fnv"
	"math"

	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// DefaultBucketBytes is the gradient bucket size of DDP, torch's
// bucket_cap_mb = 25.
const DefaultBucketBytes = 25 << 20

// DDP is data-parallel training of one model replicated on every rank
// (torch.nn.parallel.DistributedDataParallel, DGL's use_ddp recipe): each
// rank runs forward and backward on its own shard of the batch, then
// SyncGradients averages the gradients over the ranks with bucketed
// all-reduce, so that an optimizer stepping on every rank keeps the
// parameters identical. Make one with DataParallel.
type DDP struct {
	model  nn.Module
	comm   *Comm
	params []*tensor.Tensor
	// BucketBytes is the size of the gradient buckets all-reduced at once
	// (DefaultBucketBytes); the gradients are packed in reverse
	// registration order, the order backward produces them, as torch does.
	BucketBytes int
	buf         []float32
	nccl        *NCCL // CUDA parameters: gradients go over NCCL
}

// DataParallel wraps model for data-parallel training over comm (nil means
// World()): it checks that every rank's model has the same parameter shapes
// (ErrMPI on every rank otherwise) and broadcasts rank 0's parameter values
// to the others, as torch's DDP constructor does, so replicas start equal
// whatever their seeds. Parameters are float32, all on the CPU (gradients
// all-reduced over MPI) or all on one CUDA device (over NCCL: DataParallel
// makes an NCCL communicator with NewNCCL on the parameters' device, one
// GPU per rank, and broadcasts and averages on the GPU; NCCL() returns
// it). With a single-process communicator it is a no-op wrapper on any
// device.
func DataParallel(model nn.Module, comm *Comm) (*DDP, error) {
	const op = "DataParallel"
	if comm == nil {
		comm = World()
	}
	if model == nil {
		return nil, comm.rankErr(ErrArgument, op, "the model is nil")
	}
	if err := comm.ready(op); err != nil {
		return nil, err
	}
	params := nn.Unwrap(model).Parameters() // a cell's struct with an nn.Base needs no nn.Register
	shape := []int64{int64(len(params))}
	device := "cpu"
	if len(params) > 0 {
		device = params[0].Device()
	}
	for i, p := range params {
		if p.DType() != tensor.Float32 || p.Device() != device {
			return nil, comm.rankErr(ErrDType, op, "parameter %d is %v on %s (parameter 0 on %s); DataParallel takes float32 parameters all on one device", i, p.DType(), p.Device(), device)
		}
		shape = append(shape, int64(p.Numel()))
	}
	if err := comm.agree(op, "(parameter count, sizes)", shape...); err != nil {
		return nil, err
	}
	d := &DDP{model: model, comm: comm, params: params, BucketBytes: DefaultBucketBytes}
	if device != "cpu" {
		if comm.size == 1 {
			return d, nil
		}
		n, err := NewNCCL(comm, device)
		if err != nil {
			return nil, err
		}
		d.nccl = n
		for _, p := range params {
			if err := n.Broadcast(p, 0); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	for _, p := range params {
		if err := comm.bcastRaw(op, rawBytes(p), 0); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Module returns the wrapped model (torch's ddp.module).
func (d *DDP) Module() nn.Module { return d.model }

// Comm returns the communicator.
func (d *DDP) Comm() *Comm { return d.comm }

// NCCL returns the NCCL communicator DataParallel made for CUDA
// parameters, nil for CPU ones (and in one process).
func (d *DDP) NCCL() *NCCL { return d.nccl }

// Parameters returns the model's parameters, for the optimizer.
func (d *DDP) Parameters() []*tensor.Tensor { return d.params }

// SyncGradients replaces every parameter's gradient by its average over the
// ranks (a parameter without a gradient counts as zeros and gets one), in
// buckets of BucketBytes, in reverse parameter order. Call it on every rank
// after loss.Backward() and before the optimizer step. The sums are the MPI
// library's all-reduce, the same on every rank, then scaled by 1/Size.
func (d *DDP) SyncGradients() error {
	const op = "DDP.SyncGradients"
	if err := d.comm.ready(op); err != nil {
		return err
	}
	if d.comm.size == 1 {
		return nil
	}
	if d.nccl != nil {
		// On the GPU: one NCCL group of ncclAvg all-reduces (NCCL fuses
		// them), a zero gradient for a parameter without one.
		grads := make([]*tensor.Tensor, len(d.params))
		for i, p := range d.params {
			if p.Grad() == nil {
				p.SetGrad(tensor.ZerosLike(p))
			}
			grads[i] = p.Grad()
		}
		return d.nccl.allReduceMany(op, grads, "avg")
	}
	limit := max(1, d.BucketBytes/4)
	scale := 1 / float32(d.comm.size)
	for hi := len(d.params); hi > 0; {
		lo, n := hi, 0
		for lo > 0 && (n == 0 || n+d.params[lo-1].Numel() <= limit) {
			lo--
			n += d.params[lo].Numel()
		}
		bucket := d.params[lo:hi]
		d.buf = nn.GradientsToVector(bucket, d.buf)
		if err := d.comm.allReduceRaw(op, ptr(d.buf), len(d.buf), d.comm.lib.h.float32, d.comm.lib.h.opSum); err != nil {
			return err
		}
		for i := range d.buf {
			d.buf[i] *= scale
		}
		nn.VectorToGradients(d.buf, bucket)
		hi = lo
	}
	return nil
}

// ParameterChecksum is a 64-bit FNV-1a hash of the bits of every parameter
// value, in order: equal checksums mean bit-identical replicas.
func (d *DDP) ParameterChecksum() uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, p := range d.params {
		if p.Device() != "cpu" {
			p = p.ToCPU()
		}
		for _, v := range p.Float32s() {
			u := math.Float32bits(v)
			b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
			h.Write(b[:])
		}
	}
	return h.Sum64()
}

// CheckParametersIdentical all-gathers every rank's ParameterChecksum and
// returns an ErrMPI error naming the ranks whose parameters differ from
// rank 0's (nil when all replicas are bit-identical).
func (d *DDP) CheckParametersIdentical() error {
	const op = "DDP.CheckParametersIdentical"
	sums, _, err := d.comm.AllGatherInt64s([]int64{int64(d.ParameterChecksum())})
	if err != nil {
		return err
	}
	var bad []int
	for r, s := range sums {
		if s != sums[0] {
			bad = append(bad, r)
		}
	}
	if len(bad) > 0 {
		return d.comm.rankErr(ErrMPI, op, "the parameters of ranks %v differ from rank 0's (checksums %x)", bad, sums)
	}
	return nil
}

// Shard is this rank's sampling.Shard, for LoaderOptions.Shard: each rank
// its share of every epoch's shuffled seeds (torch's DistributedSampler,
// DGL's use_ddp).
func (c *Comm) Shard() sampling.Shard { return sampling.Shard{Rank: c.rank, Size: c.size} }
