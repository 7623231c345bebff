package dist

import "github.com/gnnrepl/gnnrepl/internal/rowopt"

// SparseOptions are the hyperparameters of the sparse optimizers over
// DistEmbeddings (DGL's dgl.distributed.optim.SparseAdam / SparseAdagrad).
type SparseOptions struct {
	// LR is the learning rate (0.01 when 0).
	LR float64
	// Betas are Adam's moment decay rates ({0.9, 0.999} when both 0).
	Betas [2]float64
	// Eps is added to the denominator (Adam 1e-8, Adagrad 1e-10 when 0,
	// as DGL).
	Eps float64
	// GradReduce is how the gradients of one row from several ranks are
	// combined: "mean" (the default: the sum divided by the number of
	// ranks, as DataParallel averages dense gradients, so that N ranks
	// with batch B train as one process with batch N*B and a per-rank
	// mean loss) or "sum" (DGL's push).
	GradReduce string
}

// SparseOptimizer updates DistEmbedding rows from the gradients of the
// rows their Forward calls returned: Step pushes each batch's gradient
// rows to the owning ranks with all-to-all(v), the owner sums the rows of
// one id (in rank order, then batch order), and updates only those rows
// and their state. A collective: every rank calls Step once per step.
type SparseOptimizer struct {
	kind   string // "adam" or "adagrad"
	embs   []*DistEmbedding
	o      SparseOptions
	scale  float32
	state  []sparseState
	steps  int
	lastUp int // rows updated by the last Step on this rank
}

// sparseState is one table's optimizer state, per local row.
type sparseState struct {
	m, v []float32 // Adam moments or (v) Adagrad's sum of squares
	step []int64   // Adam: updates per row (DGL's per-row bias correction)
}

// NewSparseAdam returns Adam applied row-wise to the rows a step touched
// (DGL's SparseAdam): for a row with summed gradient g at its t-th update,
// m = b1 m + (1-b1) g, v = b2 v + (1-b2) g^2, w -= lr (m / (1-b1^t)) /
// (sqrt(v / (1-b2^t)) + eps); rows not in the step keep their state (lazy,
// as torch's SparseAdam). Errors: no tables, a bad option (ErrArgument).
func NewSparseAdam(embs []*DistEmbedding, o SparseOptions) (*SparseOptimizer, error) {
	if o.Betas == [2]float64{} {
		o.Betas = [2]float64{0.9, 0.999}
	}
	if o.Eps == 0 {
		o.Eps = 1e-8
	}
	return newSparse("adam", "NewSparseAdam", embs, o)
}

// NewSparseAdagrad returns Adagrad applied row-wise (DGL's SparseAdagrad):
// s += g^2, w -= lr g / (sqrt(s) + eps), for the rows a step touched.
func NewSparseAdagrad(embs []*DistEmbedding, o SparseOptions) (*SparseOptimizer, error) {
	if o.Eps == 0 {
		o.Eps = 1e-10
	}
	return newSparse("adagrad", "NewSparseAdagrad", embs, o)
}

func newSparse(kind, op string, embs []*DistEmbedding, o SparseOptions) (*SparseOptimizer, error) {
	if len(embs) == 0 {
		return nil, errf(ErrArgument, op, "no DistEmbedding to optimize")
	}
	c := embs[0].comm
	for i, e := range embs {
		if e == nil || e.comm != c {
			return nil, c.rankErr(ErrArgument, op, "table %d is nil or on another communicator", i)
		}
	}
	if o.LR == 0 {
		o.LR = 0.01
	}
	if !(o.LR > 0) || !(o.Eps >= 0) || o.Betas[0] < 0 || o.Betas[0] >= 1 || o.Betas[1] < 0 || o.Betas[1] >= 1 {
		return nil, c.rankErr(ErrArgument, op, "LR %g, Eps %g, Betas %v; want LR > 0, Eps >= 0, Betas in [0, 1)", o.LR, o.Eps, o.Betas)
	}
	s := &SparseOptimizer{kind: kind, embs: embs, o: o, scale: 1}
	switch o.GradReduce {
	case "", "mean":
		s.o.GradReduce = "mean"
		s.scale = 1 / float32(c.Size())
	case "sum":
	default:
		return nil, c.rankErr(ErrArgument, op, "GradReduce %q; want \"mean\" or \"sum\"", o.GradReduce)
	}
	for _, e := range embs {
		st := sparseState{v: make([]float32, len(e.rows))}
		if kind == "adam" {
			st.m, st.step = make([]float32, len(e.rows)), make([]int64, e.nlocal)
		}
		s.state = append(s.state, st)
	}
	return s, nil
}

// ZeroGrad forgets the rows pulled since the last Step (their gradients
// will not be pushed).
func (s *SparseOptimizer) ZeroGrad() {
	for _, e := range s.embs {
		e.trace = nil
	}
}

// UpdatedRows returns how many rows this rank updated in the last Step.
func (s *SparseOptimizer) UpdatedRows() int { return s.lastUp }

// Step pushes the gradients of every row pulled by Forward since the last
// Step to its owner and applies the update there (a collective). Rows
// whose output got no gradient (not used by the loss) are skipped.
func (s *SparseOptimizer) Step() error {
	const op = "SparseOptimizer.Step"
	s.lastUp = 0
	for ti, e := range s.embs {
		if err := e.comm.ready(op); err != nil {
			return err
		}
		d := e.dim
		var ids []int64
		var grads []float32
		for _, p := range e.trace {
			g := p.out.Grad()
			if g == nil || len(p.ids) == 0 {
				continue
			}
			ids = append(ids, p.ids...)
			grads = append(grads, g.Float32s()...)
		}
		e.trace = nil
		send, counts, from := e.route(ids)
		sg := make([]float32, len(send)*d)
		for j, i := range from {
			copy(sg[j*d:(j+1)*d], grads[i*d:(i+1)*d])
		}
		rids, _, err := e.comm.AllToAllVInt64s(send, counts)
		if err != nil {
			return err
		}
		for r := range counts {
			counts[r] *= d
		}
		rg, _, err := e.comm.AllToAllVFloat32s(sg, counts)
		if err != nil {
			return err
		}
		// Sum the rows of each id, in the order received.
		slot := map[int64]int{}
		var rows []int64
		var sum []float32
		for j, v := range rids {
			k, ok := slot[v]
			if !ok {
				k = len(rows)
				slot[v] = k
				rows = append(rows, e.local(v))
				sum = append(sum, make([]float32, d)...)
			}
			acc := sum[k*d : (k+1)*d]
			for q, x := range rg[j*d : (j+1)*d] {
				acc[q] += x
			}
		}
		st := &s.state[ti]
		for k, l := range rows {
			g := sum[k*d : (k+1)*d]
			w := e.rows[l*int64(d) : (l+1)*int64(d)]
			v := st.v[l*int64(d) : (l+1)*int64(d)]
			switch s.kind {
			case "adagrad":
				rowopt.Adagrad(w, v, g, s.scale, s.o.LR, s.o.Eps)
			case "adam":
				st.step[l]++
				rowopt.Adam(w, st.m[l*int64(d):(l+1)*int64(d)], v, g, s.scale, int(st.step[l]), s.o.LR, s.o.Betas[0], s.o.Betas[1], s.o.Eps)
			}
		}
		s.lastUp += len(rows)
	}
	s.steps++
	return nil
}
