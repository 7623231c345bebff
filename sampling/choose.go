package sampling

import (
	"fmt"
	"math"
	"slices"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// layerSpec says how to pick the neighbours of every destination node of
// one layer.
type layerSpec struct {
	adj      *tensor.Adj // destination-major: the neighbours of each node
	weights  []float32   // per parent edge id, or nil for uniform
	probName string      // edge data name of weights, for errors
	fanout   int         // -1: all neighbours
	replace  bool
	key      uint64     // layerKey(epochSeed, layer)
	excl     *exclusion // edges removed before sampling, or nil
	// ids, when set, are the ids node v's streams are keyed by (ids[v]
	// instead of v): a partition's local nodes keyed by their global ids
	// (PickNeighbors), so that they draw what the whole graph would.
	ids []int64
}

// streamID is the id node v's random stream is keyed by.
func (c *layerSpec) streamID(v int64) int64 {
	if c.ids != nil {
		return c.ids[v]
	}
	return v
}

// exclusion is a set of parent edge ids removed from the graph before
// sampling (DGL's exclude_eids): a bit per edge, and a bit per node whose
// adjacency list holds an excluded edge, so that the other nodes are
// sampled exactly as without exclusion.
type exclusion struct {
	edges, nodes []uint64
}

func (x *exclusion) edge(e int64) bool { return x.edges[e>>6]&(1<<(e&63)) != 0 }
func (x *exclusion) node(v int64) bool { return x.nodes[v>>6]&(1<<(v&63)) != 0 }

// affects reports whether node v has an excluded edge.
func (c *layerSpec) affects(v int64) bool { return c.excl != nil && c.excl.node(v) }

// capacity returns the most edges choose can return for a node of degree d.
func (c *layerSpec) capacity(d int64) int64 {
	switch {
	case d == 0:
		return 0
	case c.fanout < 0:
		return d
	case c.replace:
		return int64(c.fanout)
	}
	return min(int64(c.fanout), d)
}

// weightError reports an invalid sampling weight.
func (c *layerSpec) weightError(e int64) error {
	return fmt.Errorf("sampling.NeighborSampler: Prob %q: edge %d has weight %g; weights must be finite and >= 0: %w",
		c.probName, e, c.weights[e], ErrArgument)
}

func validWeight(w float32) bool { return w >= 0 && w <= math.MaxFloat32 }

// choose picks the neighbours of node v: it writes their parent ids into
// nbr and the parent edge ids into eid (both at least capacity(degree)
// long) and returns how many it wrote. The picks are a function of
// (c.key, v) and the graph only. Chosen edges are listed in adjacency order
// (with repeats next to each other when sampling with replacement).
//
// Uniform sampling without replacement draws a uniformly random fanout-subset
// of the edges (Floyd's algorithm, or a partial Fisher–Yates shuffle when
// the fanout is at least half the degree); with replacement it draws fanout
// independent uniform edges. Weighted sampling without replacement is A-ES
// (Efraimidis and Spirakis, "Weighted random sampling with a reservoir",
// IPL 2006): keep the fanout edges with the largest u^(1/w); with
// replacement it draws fanout edges with probability w / sum(w) by binary
// search in the prefix sums. Zero-weight edges are never chosen, so a node
// may get fewer than fanout edges, and none when all its weights are zero.
func (c *layerSpec) choose(ws *scratch, v int64, nbr, eid []int64) (int, error) {
	a := c.adj
	lo, hi := a.Indptr[v], a.Indptr[v+1]
	d := hi - lo
	if d == 0 {
		return 0, nil
	}
	if c.weights == nil && c.affects(v) {
		return c.chooseExcluding(ws, v, lo, hi, nbr, eid), nil
	}
	all := c.fanout < 0 || (!c.replace && int64(c.fanout) >= d)
	if c.weights == nil {
		if all {
			copy(nbr[:d], a.Indices[lo:hi])
			if a.EIDs != nil {
				copy(eid[:d], a.EIDs[lo:hi])
			} else {
				for i := range eid[:d] {
					eid[i] = lo + int64(i)
				}
			}
			return int(d), nil
		}
		pos := c.uniformPositions(ws, v, d)
		emitPos(a, lo, hi, pos, nbr, eid)
		return len(pos), nil
	}
	emit := func(j int, off int64) {
		p := lo + off
		nbr[j] = a.Indices[p]
		if a.EIDs != nil {
			eid[j] = a.EIDs[p]
		} else {
			eid[j] = p
		}
	}
	return c.chooseWeighted(ws, v, lo, d, all, emit)
}

// uniformPositions draws the sorted offsets in [0, d) of node v's fanout
// picks (d > fanout >= 0 without replacement, any d > 0 with it) from v's
// stream; the slice is ws.pos's storage.
func (c *layerSpec) uniformPositions(ws *scratch, v, d int64) []int64 {
	st := nodeStream(c.key, c.streamID(v))
	k := int64(c.fanout)
	var pos []int64
	switch {
	case c.replace:
		pos = growInt64(ws.pos, int(k))
		for i := range pos {
			pos[i] = st.intn(d)
		}
	case 2*k >= d: // partial Fisher–Yates over [0, d)
		pos = growInt64(ws.pos, int(d))
		for i := range pos {
			pos[i] = int64(i)
		}
		for i := int64(0); i < k; i++ {
			j := i + st.intn(d-i)
			pos[i], pos[j] = pos[j], pos[i]
		}
		pos = pos[:k]
	default: // Floyd's algorithm, kept sorted
		pos = growInt64(ws.pos, int(k))[:0]
		for j := d - k; j < d; j++ {
			t := st.intn(j + 1)
			if i, found := slices.BinarySearch(pos, t); found {
				pos = append(pos, j) // j exceeds every earlier pick
			} else {
				pos = slices.Insert(pos, i, t)
			}
		}
	}
	ws.pos = pos[:0]
	if c.replace || 2*k >= d {
		slices.Sort(pos)
	}
	return pos
}

// chooseExcluding is uniform choose for a node with excluded edges: the
// picks are drawn, by the same algorithm and stream, from the node's
// remaining edges as if the excluded ones were not in the graph.
func (c *layerSpec) chooseExcluding(ws *scratch, v, lo, hi int64, nbr, eid []int64) int {
	a := c.adj
	cand := ws.cand[:0]
	for p := lo; p < hi; p++ {
		if !c.excl.edge(eidAt(a, p)) {
			cand = append(cand, p)
		}
	}
	ws.cand = cand[:0]
	d := int64(len(cand))
	if d == 0 {
		return 0
	}
	if c.fanout < 0 || (!c.replace && int64(c.fanout) >= d) {
		for j, p := range cand {
			nbr[j], eid[j] = a.Indices[p], eidAt(a, p)
		}
		return int(d)
	}
	pos := c.uniformPositions(ws, v, d)
	for j, off := range pos {
		p := cand[off]
		nbr[j], eid[j] = a.Indices[p], eidAt(a, p)
	}
	return len(pos)
}

// emitPos writes the neighbours and parent edge ids at adjacency offsets
// pos of the node whose edges are a's positions [lo, hi).
func emitPos(a *tensor.Adj, lo, hi int64, pos, nbr, eid []int64) {
	idx := a.Indices[lo:hi]
	nbr = nbr[:len(pos)]
	eid = eid[:len(pos)]
	if a.EIDs != nil {
		e := a.EIDs[lo:hi]
		for j, off := range pos {
			nbr[j], eid[j] = idx[off], e[off]
		}
		return
	}
	for j, off := range pos {
		nbr[j], eid[j] = idx[off], lo+off
	}
}

// chooseWeighted is choose with per-edge weights.
func (c *layerSpec) chooseWeighted(ws *scratch, v, lo, d int64, all bool, emit func(int, int64)) (int, error) {
	a, w := c.adj, c.weights
	excluding := c.affects(v)
	weight := func(off int64) (float32, error) {
		e := lo + off
		if a.EIDs != nil {
			e = a.EIDs[e]
		}
		x := w[e]
		if !validWeight(x) {
			return 0, c.weightError(e)
		}
		if excluding && c.excl.edge(e) {
			return 0, nil // an excluded edge is never picked, as weight 0
		}
		return x, nil
	}
	if all {
		n := 0
		for off := int64(0); off < d; off++ {
			x, err := weight(off)
			if err != nil {
				return 0, err
			}
			if x > 0 {
				emit(n, off)
				n++
			}
		}
		return n, nil
	}
	st := nodeStream(c.key, c.streamID(v))
	if c.replace {
		cum := growFloat64(ws.cum, int(d))
		ws.cum = cum
		total := 0.0
		last := int64(-1)
		for off := int64(0); off < d; off++ {
			x, err := weight(off)
			if err != nil {
				return 0, err
			}
			if x > 0 {
				last = off
			}
			total += float64(x)
			cum[off] = total
		}
		if last < 0 {
			return 0, nil
		}
		pos := growInt64(ws.pos, c.fanout)
		for i := range pos {
			r := st.open01() * total
			// The first edge whose prefix sum exceeds r; a zero-weight edge
			// never is, since its sum equals its predecessor's.
			j, _ := slices.BinarySearchFunc(cum, r, func(s, r float64) int {
				if s <= r {
					return -1
				}
				return 1
			})
			if int64(j) > last {
				j = int(last) // r rounded up to total
			}
			pos[i] = int64(j)
		}
		ws.pos = pos[:0]
		slices.Sort(pos)
		for j, off := range pos {
			emit(j, off)
		}
		return len(pos), nil
	}
	// A-ES: keep the k largest log(u)/w in a min-heap (keys, pos).
	k := c.fanout
	keys := growFloat64(ws.keys, k)[:0]
	pos := growInt64(ws.pos, k)[:0]
	for off := int64(0); off < d; off++ {
		x, err := weight(off)
		if err != nil {
			return 0, err
		}
		u := st.open01()
		if x == 0 {
			continue
		}
		key := math.Log(u) / float64(x)
		if len(keys) < k {
			keys, pos = append(keys, key), append(pos, off)
			heapUp(keys, pos, len(keys)-1)
		} else if key > keys[0] {
			keys[0], pos[0] = key, off
			heapDown(keys, pos, 0)
		}
	}
	ws.keys, ws.pos = keys[:0], pos[:0]
	slices.Sort(pos)
	for j, off := range pos {
		emit(j, off)
	}
	return len(pos), nil
}

// heapUp and heapDown keep keys a min-heap, moving pos along.
func heapUp(keys []float64, pos []int64, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if keys[p] <= keys[i] {
			return
		}
		keys[p], keys[i] = keys[i], keys[p]
		pos[p], pos[i] = pos[i], pos[p]
		i = p
	}
}

func heapDown(keys []float64, pos []int64, i int) {
	n := len(keys)
	for {
		l, m := 2*i+1, i
		if l < n && keys[l] < keys[m] {
			m = l
		}
		if r := l + 1; r < n && keys[r] < keys[m] {
			m = r
		}
		if m == i {
			return
		}
		keys[m], keys[i] = keys[i], keys[m]
		pos[m], pos[i] = pos[i], pos[m]
		i = m
	}
}

// eidAt returns the parent edge id stored at adjacency position p.
func eidAt(a *tensor.Adj, p int64) int64 {
	if a.EIDs == nil {
		return p
	}
	return a.EIDs[p]
}
