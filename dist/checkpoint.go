package dist

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/checkpoint"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Metadata keys SaveCheckpoint adds to the file.
const (
	metaSize    = "dist.size"
	metaGenPref = "dist.generators.rank"
)

// stateGenerators lists the random generators of st by the names package
// checkpoint saves them under ("model", "model.<module>", then
// st.Generators' names), sorted.
func stateGenerators(st *checkpoint.State) (names []string, gens map[string]*tensor.Generator) {
	gens = map[string]*tensor.Generator{}
	if st.Model != nil {
		for _, g := range nn.Generators(st.Model) {
			name := "model"
			if g.Name != "" {
				name += "." + g.Name
			}
			gens[name] = g.Gen
		}
	}
	for k, g := range st.Generators {
		if g != nil {
			gens[k] = g
		}
	}
	for k := range gens {
		names = append(names, k)
	}
	sort.Strings(names)
	return names, gens
}

// SaveCheckpoint writes the training state st to path once for the whole
// job, the way DDP training checkpoints (torch: save on rank 0, then
// dist.barrier()). Every rank calls it at the same point, typically at
// the end of an epoch. Rank 0 writes the file with checkpoint.Save
// (atomically: a crash mid-write leaves the previous checkpoint whole);
// the model, optimizer, scheduler, scaler and loader position are rank
// 0's, which data-parallel training keeps identical on every rank (the
// loader position too: every rank's shard has the same length). What
// differs per rank, the random generators' states (dropout masks of
// batches of different sizes advance them differently), is gathered from
// every rank and stored in the file's metadata ("dist.generators.rankR"),
// with the number of ranks ("dist.size"). It returns when the file is
// complete, on every rank: the write's outcome is broadcast from rank 0,
// so a failed write is an error on every rank (rank 0's own error, on the
// others an ErrCheckpoint error naming the file).
//
// st.Meta may not use the keys starting with "dist.". A single-process
// communicator just saves.
func (c *Comm) SaveCheckpoint(path string, st checkpoint.State) error {
	const op = "SaveCheckpoint"
	if err := c.ready(op); err != nil {
		return err
	}
	if path == "" {
		return c.rankErr(ErrArgument, op, "the path is empty")
	}
	for k := range st.Meta {
		if strings.HasPrefix(k, "dist.") {
			return c.rankErr(ErrArgument, op, "Meta key %q: keys starting with \"dist.\" are SaveCheckpoint's", k)
		}
	}
	names, gens := stateGenerators(&st)
	mine := map[string]string{}
	for _, n := range names {
		mine[n] = base64.StdEncoding.EncodeToString(gens[n].GetState())
	}
	js, err := json.Marshal(mine)
	if err != nil {
		return c.rankErr(ErrArgument, op, "generator states: %v", err)
	}
	all, counts, err := c.allGatherBytes(op, js, len(js), 1)
	if err != nil {
		return err
	}
	var saveErr error
	if c.rank == 0 {
		meta := map[string]string{metaSize: strconv.Itoa(c.size)}
		for k, v := range st.Meta {
			meta[k] = v
		}
		off := 0
		for r, n := range counts {
			meta[metaGenPref+strconv.Itoa(r)] = string(all[off : off+n])
			off += n
		}
		st.Meta = meta
		saveErr = checkpoint.Save(path, st)
	}
	status := []int64{0}
	if saveErr != nil {
		status[0] = 1
	}
	if err := c.bcastRaw(op, int64Bytes(status), 0); err != nil {
		return err
	}
	switch {
	case saveErr != nil:
		return c.ckptErr(op, saveErr)
	case status[0] != 0:
		return c.rankErr(ErrCheckpoint, op, "rank 0 could not write %s (its error is in rank 0's output)", path)
	}
	return nil
}

// LoadCheckpoint restores on every rank the state a SaveCheckpoint of a
// job with as many ranks wrote to path, so that the restarted job goes on
// bit-identically to one that was never interrupted: checkpoint.Load of
// the file into st (model, optimizer, scheduler, scaler, loader position,
// Meta), then this rank's own random generator states. Every rank calls
// it, with st holding objects built as in the run that saved. It returns
// false and changes nothing when no rank finds path (a fresh start).
//
// Errors, on every rank alike (the ranks agree on the outcome, so none
// goes on training alone): path exists for some ranks and not for others
// (the checkpoint must be on a file system every rank sees; ErrCheckpoint
// naming the ranks), the file was written by a job of another size or
// lacks the "dist." entries (ErrCheckpoint), or checkpoint.Load fails on
// some rank (that rank gets its checkpoint error, the others an
// ErrCheckpoint error naming it). st's Meta comes back without the
// "dist." entries.
func (c *Comm) LoadCheckpoint(path string, st *checkpoint.State) (bool, error) {
	const op = "LoadCheckpoint"
	if err := c.ready(op); err != nil {
		return false, err
	}
	if st == nil {
		return false, c.rankErr(ErrArgument, op, "the state is nil")
	}
	exists := int64(0)
	if _, err := os.Stat(path); err == nil {
		exists = 1
	}
	seen, _, err := c.allGatherBytes(op, int64Bytes([]int64{exists}), 1, 8)
	if err != nil {
		return false, err
	}
	var have, lack []int
	for r, v := range bytesTo[int64](seen) {
		if v != 0 {
			have = append(have, r)
		} else {
			lack = append(lack, r)
		}
	}
	if len(have) == 0 {
		return false, nil
	}
	if len(lack) > 0 {
		return false, c.rankErr(ErrCheckpoint, op, "%s exists for ranks %v but not for ranks %v; put the checkpoint on a file system every rank sees", path, have, lack)
	}
	loadErr := c.loadCheckpoint(path, st)
	failed := int64(0)
	if loadErr != nil {
		failed = 1
	}
	flags, _, err := c.allGatherBytes(op, int64Bytes([]int64{failed}), 1, 8)
	if err != nil {
		return false, err
	}
	var bad []int
	for r, v := range bytesTo[int64](flags) {
		if v != 0 {
			bad = append(bad, r)
		}
	}
	switch {
	case loadErr != nil:
		return false, c.ckptErr(op, loadErr)
	case len(bad) > 0:
		return false, c.rankErr(ErrCheckpoint, op, "ranks %v could not load %s (their errors are in their output)", bad, path)
	}
	return true, nil
}

// loadCheckpoint is this rank's part of LoadCheckpoint: it checks the
// "dist." entries before checkpoint.Load changes anything, then loads and
// sets this rank's generators.
func (c *Comm) loadCheckpoint(path string, st *checkpoint.State) error {
	_, meta, err := checkpoint.LoadFile(path)
	if err != nil {
		return err
	}
	size, err := strconv.Atoi(meta[metaSize])
	if err != nil {
		return fmt.Errorf("%s has no valid %q entry (%q): it was not written by dist.SaveCheckpoint", path, metaSize, meta[metaSize])
	}
	if size != c.size {
		return fmt.Errorf("%s was written by a job of %d ranks; this job has %d (resume with mpirun -np %d)", path, size, c.size, size)
	}
	var states map[string]string
	if err := json.Unmarshal([]byte(meta[metaGenPref+strconv.Itoa(c.rank)]), &states); err != nil {
		return fmt.Errorf("%s: entry %q: %v", path, metaGenPref+strconv.Itoa(c.rank), err)
	}
	names, gens := stateGenerators(st)
	raw := map[string][]byte{}
	probe := tensor.NewGenerator(0)
	for _, n := range names {
		s, ok := states[n]
		if !ok {
			return fmt.Errorf("%s: rank %d saved no state for generator %q", path, c.rank, n)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err == nil {
			err = probe.SetState(b)
		}
		if err != nil {
			return fmt.Errorf("%s: rank %d's state of generator %q: %v", path, c.rank, n, err)
		}
		raw[n] = b
	}
	if err := checkpoint.Load(path, st); err != nil {
		return err
	}
	for _, n := range names {
		if err := gens[n].SetState(raw[n]); err != nil {
			return err // checked above
		}
	}
	for k := range st.Meta {
		if strings.HasPrefix(k, "dist.") {
			delete(st.Meta, k)
		}
	}
	return nil
}

// int64Bytes views s as bytes.
func int64Bytes(s []int64) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 8*len(s))
}

// ckptErr wraps this rank's failure: errors.Is finds ErrCheckpoint and
// the cause's kind (checkpoint.ErrFormat, checkpoint.ErrState, ...).
func (c *Comm) ckptErr(op string, err error) error {
	return fmt.Errorf("dist.%s: rank %d of %d: %w: %w", op, c.rank, c.size, ErrCheckpoint, err)
}
