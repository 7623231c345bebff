package dist

import (
	"unsafe"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// counts32 converts element counts to MPI int byte counts (times elem) and
// their displacements, or reports which one overflows.
func (c *Comm) counts32(op string, counts []int, elem int) (cnt, displ []int32, total int, err error) {
	cnt, displ = make([]int32, len(counts)), make([]int32, len(counts))
	for i, n := range counts {
		if n < 0 || !count32(n*elem) || !count32(total*elem) {
			return nil, nil, 0, c.rankErr(ErrArgument, op, "count %d for rank %d (offset %d) is negative or exceeds MPI's int byte count", n, i, total)
		}
		cnt[i], displ[i] = int32(n*elem), int32(total*elem)
		total += n
	}
	return cnt, displ, total, nil
}

// allGatherBytes gathers n elements of elem bytes at send from every rank,
// in rank order, and returns them with each rank's count.
func (c *Comm) allGatherBytes(op string, send []byte, n, elem int) ([]byte, []int, error) {
	if c.lib == nil {
		return append([]byte(nil), send...), []int{n}, nil
	}
	if !count32(n) {
		return nil, nil, c.rankErr(ErrArgument, op, "%d values exceed MPI's int count", n)
	}
	ns := make([]int64, c.size)
	mine := int64(n)
	if rc := c.lib.call("MPI_Allgather", uintptr(unsafe.Pointer(&mine)), 1, c.lib.h.int64,
		uintptr(ptr(ns)), 1, c.lib.h.int64, c.lib.h.commWorld); rc != 0 {
		return nil, nil, c.mpiErr(op, "MPI_Allgather", rc)
	}
	counts := make([]int, c.size)
	for i, v := range ns {
		counts[i] = int(v)
	}
	cnt, displ, total, err := c.counts32(op, counts, elem)
	if err != nil {
		return nil, nil, err
	}
	out := make([]byte, total*elem)
	if rc := c.lib.call("MPI_Allgatherv", uintptr(ptr(send)), uintptr(n*elem), c.lib.h.byte,
		uintptr(ptr(out)), uintptr(ptr(cnt)), uintptr(ptr(displ)), c.lib.h.byte, c.lib.h.commWorld); rc != 0 {
		return nil, nil, c.mpiErr(op, "MPI_Allgatherv", rc)
	}
	return out, counts, nil
}

// AllGatherFloat32s gathers every rank's send, in rank order, into one
// slice (MPI_Allgatherv: ranks may send different lengths) and returns it
// with the length each rank sent.
func (c *Comm) AllGatherFloat32s(send []float32) ([]float32, []int, error) {
	const name = "AllGatherFloat32s"
	if err := c.ready(name); err != nil {
		return nil, nil, err
	}
	b, counts, err := c.allGatherBytes(name, unsafe.Slice((*byte)(ptr(send)), 4*len(send)), len(send), 4)
	if err != nil {
		return nil, nil, err
	}
	return bytesTo[float32](b), counts, nil
}

// AllGatherInt64s gathers every rank's send, in rank order, into one slice
// and returns it with the length each rank sent.
func (c *Comm) AllGatherInt64s(send []int64) ([]int64, []int, error) {
	const name = "AllGatherInt64s"
	if err := c.ready(name); err != nil {
		return nil, nil, err
	}
	b, counts, err := c.allGatherBytes(name, unsafe.Slice((*byte)(ptr(send)), 8*len(send)), len(send), 8)
	if err != nil {
		return nil, nil, err
	}
	return bytesTo[int64](b), counts, nil
}

// bytesTo reinterprets b (from make([]byte), so aligned by the allocator
// for any element type) as a slice of T.
func bytesTo[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return []T{}
	}
	// Copy into a slice of T: the allocator's alignment of a []byte is
	// not promised to be T's.
	out := make([]T, n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(b)), b)
	return out
}

// rowShape is the shape of t past dim 0, and the elements of one row.
func rowShape(t *tensor.Tensor) ([]int, int) {
	sh := t.Shape()
	if len(sh) == 0 {
		return nil, 1
	}
	row := 1
	for _, d := range sh[1:] {
		row *= d
	}
	return sh[1:], row
}

// tensorFromBytes builds a CPU tensor of dtype dt and shape from raw bytes.
func tensorFromBytes(dt tensor.DType, b []byte, shape ...int) *tensor.Tensor {
	t := tensor.New(dt, shape...)
	copy(rawBytes(t), b)
	return t
}

// AllGather gathers every rank's CPU tensor along dim 0, in rank order
// (torch.distributed.all_gather_into_tensor, with MPI_Allgatherv so ranks
// may contribute different row counts): (N_r, ...) on rank r -> (sum N_r,
// ...). Any dtype; the dtype and the shape past dim 0 must agree across
// ranks (else ErrMPI on every rank). A 0-d tensor counts as one row.
func (c *Comm) AllGather(t *tensor.Tensor) (*tensor.Tensor, error) {
	const name = "AllGather"
	if err := c.ready(name); err != nil {
		return nil, err
	}
	if err := c.cpuTensor(name, t); err != nil {
		return nil, err
	}
	tail, row := rowShape(t)
	rows := 1
	if t.Dim() > 0 {
		rows = t.Size(0)
	}
	check := []int64{int64(t.DType()), int64(len(tail))}
	for _, d := range tail {
		check = append(check, int64(d))
	}
	if err := c.agree(name, "(dtype, dims, shape past dim 0)", check...); err != nil {
		return nil, err
	}
	elem := row * t.DType().Size()
	b, counts, err := c.allGatherBytes(name, rawBytes(t), rows, elem)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	return tensorFromBytes(t.DType(), b, append([]int{total}, tail...)...), nil
}

// allToAllVBytes sends sendCounts[r] elements (of elem bytes, consecutive in
// send, rank 0's first) to each rank r and returns what each rank sent here,
// in rank order, with the counts received.
func (c *Comm) allToAllVBytes(op string, send []byte, sendCounts []int, elem int) ([]byte, []int, error) {
	if len(sendCounts) != c.size {
		return nil, nil, c.rankErr(ErrShape, op, "%d send counts for %d ranks", len(sendCounts), c.size)
	}
	scnt, sdispl, stotal, err := c.counts32(op, sendCounts, elem)
	if err != nil {
		return nil, nil, err
	}
	if stotal*elem != len(send) {
		return nil, nil, c.rankErr(ErrShape, op, "the send counts add up to %d values, the buffer holds %d", stotal, len(send)/max(elem, 1))
	}
	if c.lib == nil {
		return append([]byte(nil), send...), []int{stotal}, nil
	}
	sn := make([]int64, c.size)
	for i, n := range sendCounts {
		sn[i] = int64(n)
	}
	rn := make([]int64, c.size)
	if rc := c.lib.call("MPI_Alltoall", uintptr(ptr(sn)), 1, c.lib.h.int64, uintptr(ptr(rn)), 1, c.lib.h.int64, c.lib.h.commWorld); rc != 0 {
		return nil, nil, c.mpiErr(op, "MPI_Alltoall", rc)
	}
	recvCounts := make([]int, c.size)
	for i, v := range rn {
		recvCounts[i] = int(v)
	}
	rcnt, rdispl, rtotal, err := c.counts32(op, recvCounts, elem)
	if err != nil {
		return nil, nil, err
	}
	out := make([]byte, rtotal*elem)
	if rc := c.lib.call("MPI_Alltoallv", uintptr(ptr(send)), uintptr(ptr(scnt)), uintptr(ptr(sdispl)), c.lib.h.byte,
		uintptr(ptr(out)), uintptr(ptr(rcnt)), uintptr(ptr(rdispl)), c.lib.h.byte, c.lib.h.commWorld); rc != 0 {
		return nil, nil, c.mpiErr(op, "MPI_Alltoallv", rc)
	}
	return out, recvCounts, nil
}

// AllToAllVFloat32s sends, to each rank r, sendCounts[r] consecutive values
// of send (rank 0's first; len(sendCounts) = Size, the counts adding up to
// len(send)) and returns the values every rank sent to this one, in rank
// order, with the count from each (MPI_Alltoallv; the counts are exchanged
// with MPI_Alltoall first).
func (c *Comm) AllToAllVFloat32s(send []float32, sendCounts []int) ([]float32, []int, error) {
	const name = "AllToAllVFloat32s"
	if err := c.ready(name); err != nil {
		return nil, nil, err
	}
	b, counts, err := c.allToAllVBytes(name, unsafe.Slice((*byte)(ptr(send)), 4*len(send)), sendCounts, 4)
	if err != nil {
		return nil, nil, err
	}
	return bytesTo[float32](b), counts, nil
}

// AllToAllVInt64s is AllToAllVFloat32s for int64 values (node ids).
func (c *Comm) AllToAllVInt64s(send []int64, sendCounts []int) ([]int64, []int, error) {
	const name = "AllToAllVInt64s"
	if err := c.ready(name); err != nil {
		return nil, nil, err
	}
	b, counts, err := c.allToAllVBytes(name, unsafe.Slice((*byte)(ptr(send)), 8*len(send)), sendCounts, 8)
	if err != nil {
		return nil, nil, err
	}
	return bytesTo[int64](b), counts, nil
}

// AllToAllV sends, to each rank r, sendRows[r] consecutive rows (dim 0) of
// the CPU tensor t (rank 0's rows first) and returns the rows every rank
// sent to this one, concatenated in rank order, with the row count from
// each (torch.distributed.all_to_all_single with split sizes): (sum
// sendRows, ...) -> (sum recvRows, ...). Any dtype; the dtype and the shape
// past dim 0 must agree across ranks.
func (c *Comm) AllToAllV(t *tensor.Tensor, sendRows []int) (*tensor.Tensor, []int, error) {
	const name = "AllToAllV"
	if err := c.ready(name); err != nil {
		return nil, nil, err
	}
	if err := c.cpuTensor(name, t); err != nil {
		return nil, nil, err
	}
	if t.Dim() == 0 {
		return nil, nil, c.rankErr(ErrShape, name, "a 0-d tensor has no rows")
	}
	tail, row := rowShape(t)
	check := []int64{int64(t.DType()), int64(len(tail))}
	for _, d := range tail {
		check = append(check, int64(d))
	}
	if err := c.agree(name, "(dtype, dims, shape past dim 0)", check...); err != nil {
		return nil, nil, err
	}
	b, counts, err := c.allToAllVBytes(name, rawBytes(t), sendRows, row*t.DType().Size())
	if err != nil {
		return nil, nil, err
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	return tensorFromBytes(t.DType(), b, append([]int{total}, tail...)...), counts, nil
}

// sendRaw sends b to dest with tag (MPI_Send).
func (c *Comm) sendRaw(op string, b []byte, dest, tag int) error {
	if err := c.ready(op); err != nil {
		return err
	}
	if c.lib == nil {
		return c.rankErr(ErrArgument, op, "a single-process communicator has no other rank to send to")
	}
	if err := c.checkRank(op, "dest", dest); err != nil {
		return err
	}
	if tag < 0 || !count32(tag) || !count32(len(b)) {
		return c.rankErr(ErrArgument, op, "tag %d or size %d bytes outside MPI's int range", tag, len(b))
	}
	if rc := c.lib.call("MPI_Send", uintptr(ptr(b)), uintptr(len(b)), c.lib.h.byte, uintptr(dest), uintptr(tag), c.lib.h.commWorld); rc != 0 {
		return c.mpiErr(op, "MPI_Send", rc)
	}
	return nil
}

// recvRaw receives exactly len(b) bytes from src with tag (MPI_Recv).
func (c *Comm) recvRaw(op string, b []byte, src, tag int) error {
	if err := c.ready(op); err != nil {
		return err
	}
	if c.lib == nil {
		return c.rankErr(ErrArgument, op, "a single-process communicator has no other rank to receive from")
	}
	if err := c.checkRank(op, "src", src); err != nil {
		return err
	}
	if tag < 0 || !count32(tag) || !count32(len(b)) {
		return c.rankErr(ErrArgument, op, "tag %d or size %d bytes outside MPI's int range", tag, len(b))
	}
	status := make([]byte, 64)
	if rc := c.lib.call("MPI_Recv", uintptr(ptr(b)), uintptr(len(b)), c.lib.h.byte, uintptr(src), uintptr(tag), c.lib.h.commWorld, uintptr(ptr(status))); rc != 0 {
		return c.rankErr(ErrMPI, op, "MPI_Recv from rank %d (tag %d, %d bytes expected): %s", src, tag, len(b), c.lib.errorString(rc))
	}
	var n int32
	if rc := c.lib.call("MPI_Get_count", uintptr(ptr(status)), c.lib.h.byte, uintptr(unsafe.Pointer(&n))); rc == 0 && int(n) != len(b) {
		return c.rankErr(ErrMPI, op, "rank %d sent %d bytes (tag %d), the receive buffer holds %d", src, n, tag, len(b))
	}
	return nil
}

// Send sends the CPU tensor t's values to rank dest with tag (MPI_Send,
// blocking); the receiver must Recv into a tensor of the same dtype and
// number of elements.
func (c *Comm) Send(t *tensor.Tensor, dest, tag int) error {
	if err := c.cpuTensor("Send", t); err != nil {
		return err
	}
	return c.sendRaw("Send", rawBytes(t), dest, tag)
}

// Recv receives into the CPU tensor t, in place, the values rank src sent
// with tag (MPI_Recv); a message of another size is an ErrMPI error.
func (c *Comm) Recv(t *tensor.Tensor, src, tag int) error {
	if err := c.cpuTensor("Recv", t); err != nil {
		return err
	}
	return c.recvRaw("Recv", rawBytes(t), src, tag)
}

// SendFloat32s sends buf to rank dest with tag.
func (c *Comm) SendFloat32s(buf []float32, dest, tag int) error {
	return c.sendRaw("SendFloat32s", unsafe.Slice((*byte)(ptr(buf)), 4*len(buf)), dest, tag)
}

// RecvFloat32s receives exactly len(buf) values from rank src with tag.
func (c *Comm) RecvFloat32s(buf []float32, src, tag int) error {
	return c.recvRaw("RecvFloat32s", unsafe.Slice((*byte)(ptr(buf)), 4*len(buf)), src, tag)
}

// SendInt64s sends buf to rank dest with tag.
func (c *Comm) SendInt64s(buf []int64, dest, tag int) error {
	return c.sendRaw("SendInt64s", unsafe.Slice((*byte)(ptr(buf)), 8*len(buf)), dest, tag)
}

// RecvInt64s receives exactly len(buf) values from rank src with tag.
func (c *Comm) RecvInt64s(buf []int64, src, tag int) error {
	return c.recvRaw("RecvInt64s", unsafe.Slice((*byte)(ptr(buf)), 8*len(buf)), src, tag)
}
