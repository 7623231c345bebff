package graph

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// dataMap holds named tensors whose first dimension is the node or edge
// count (DGL's ndata / edata frames).
type dataMap map[string]*tensor.Tensor

func (m dataMap) names() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// schemes renders {'feat': Scheme(shape=(1433,), dtype=float32), ...} as DGL does,
// shortened to {'feat': (1433,) float32}.
func (m dataMap) schemes() string {
	var parts []string
	for _, k := range m.names() {
		t := m[k]
		sh := t.Shape()[1:]
		dims := make([]string, len(sh))
		for i, d := range sh {
			dims[i] = fmt.Sprint(d)
		}
		s := "(" + strings.Join(dims, ", ")
		if len(sh) == 1 {
			s += ","
		}
		s += ")"
		parts = append(parts, fmt.Sprintf("'%s': %s %s", k, s, t.DType()))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (m dataMap) get(kind, name string) *tensor.Tensor {
	t, ok := m[name]
	if !ok {
		panicf(engerr.ErrArgument, "no %s data named %q (have %v)", kind, name, m.names())
	}
	return t
}

func (m dataMap) set(kind, name string, t *tensor.Tensor, rows int) error {
	if t == nil {
		delete(m, name)
		return nil
	}
	if t.Dim() == 0 || t.Size(0) != rows {
		return errorf(engerr.ErrShape, "", "%s data %q must have %d rows (one per %s), got shape %v", kind, name, rows, kind, t.Shape())
	}
	m[name] = t
	return nil
}

// NData returns the node data tensor called name of a graph with one node
// type (g.ndata[name]); it panics with *Error listing the names present
// when there is none.
func (g *Graph) NData(name string) *tensor.Tensor {
	if len(g.ntypes) != 1 {
		panicf(ErrHetero, "NData: %v; use NDataOf", ErrHetero)
	}
	return g.ndata[0].get("node", name)
}

// HasNData reports whether node data name exists (single node type).
func (g *Graph) HasNData(name string) bool {
	if len(g.ntypes) != 1 {
		return false
	}
	_, ok := g.ndata[0][name]
	return ok
}

// SetNData stores t (first dimension = number of nodes) as node data name;
// nil removes it. It returns an error naming the data when the row count
// is wrong.
func (g *Graph) SetNData(name string, t *tensor.Tensor) error {
	if len(g.ntypes) != 1 {
		return errorf(ErrHetero, "SetNData", "%v; use SetNDataOf", ErrHetero)
	}
	return g.ndata[0].set("node", name, t, g.numNodes[0])
}

// NDataNames returns the names of the node data, sorted.
func (g *Graph) NDataNames() []string {
	if len(g.ntypes) != 1 {
		return nil
	}
	return g.ndata[0].names()
}

// NDataOf and SetNDataOf are NData and SetNData for one node type.
func (g *Graph) NDataOf(ntype, name string) *tensor.Tensor {
	i := g.ntypeIndex(ntype)
	if i < 0 {
		panicf(engerr.ErrArgument, "no node type %q (have %v)", ntype, g.ntypes)
	}
	return g.ndata[i].get("node", name)
}

// NDataNamesOf returns the names of node type ntype's data, sorted; it
// panics with ErrArgument for an unknown node type.
func (g *Graph) NDataNamesOf(ntype string) []string {
	i := g.ntypeIndex(ntype)
	if i < 0 {
		panicf(engerr.ErrArgument, "no node type %q (have %v)", ntype, g.ntypes)
	}
	return g.ndata[i].names()
}

// EDataNamesOf returns the names of edge type etype's data, sorted; it
// panics as EDataOf for an unknown or ambiguous edge type.
func (g *Graph) EDataNamesOf(etype string) []string { return g.rel(etype).edata.names() }

// SetNDataOf stores node data for node type ntype.
func (g *Graph) SetNDataOf(ntype, name string, t *tensor.Tensor) error {
	i := g.ntypeIndex(ntype)
	if i < 0 {
		return errorf(engerr.ErrArgument, "", "no node type %q (have %v)", ntype, g.ntypes)
	}
	return g.ndata[i].set("node", name, t, g.numNodes[i])
}

// EData returns the edge data tensor called name (single edge type).
func (g *Graph) EData(name string) *tensor.Tensor { return g.one("EData").edata.get("edge", name) }

// HasEData reports whether edge data name exists (single edge type).
func (g *Graph) HasEData(name string) bool {
	if len(g.rels) != 1 {
		return false
	}
	_, ok := g.rels[0].edata[name]
	return ok
}

// SetEData stores t (first dimension = number of edges) as edge data name.
func (g *Graph) SetEData(name string, t *tensor.Tensor) error {
	if len(g.rels) != 1 {
		return errorf(ErrHetero, "SetEData", "%v; use SetEDataOf", ErrHetero)
	}
	r := g.rels[0]
	return r.edata.set("edge", name, t, len(r.src))
}

// EDataNames returns the names of the edge data, sorted.
func (g *Graph) EDataNames() []string {
	if len(g.rels) != 1 {
		return nil
	}
	return g.rels[0].edata.names()
}

// EDataOf and SetEDataOf are EData and SetEData for one edge type.
func (g *Graph) EDataOf(etype, name string) *tensor.Tensor {
	return g.rel(etype).edata.get("edge", name)
}

// SetEDataOf stores edge data for edge type etype.
func (g *Graph) SetEDataOf(etype, name string, t *tensor.Tensor) error {
	r := g.rel(etype)
	return r.edata.set("edge", name, t, len(r.src))
}

// HasNDataOf reports whether node type ntype has node data name (false for
// an unknown node type).
func (g *Graph) HasNDataOf(ntype, name string) bool {
	i := g.ntypeIndex(ntype)
	if i < 0 {
		return false
	}
	_, ok := g.ndata[i][name]
	return ok
}

// HasEDataOf reports whether edge type etype has edge data name; it panics
// as EDataOf for an unknown or ambiguous edge type.
func (g *Graph) HasEDataOf(etype, name string) bool {
	_, ok := g.rel(etype).edata[name]
	return ok
}
