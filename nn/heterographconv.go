package nn

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// HeteroGraphConv runs one module per relation of a heterograph and
// combines, per destination node type, the results of the relations that
// reach it (DGL's dgl.nn.HeteroGraphConv):
//
//	h_dst = AGG_{r : (src, r, dst)} mods[r](g[r], x_src)
//
// Mods maps an edge type (its name, when only one canonical edge type has
// it, or the CanonicalEType String form) to a module that takes the
// relation's bipartite graph (graph.RelationGraph) and the source type's
// features, such as GraphConv (with AllowZeroInDegree where some
// destination has no edge of the relation) or GATConv. Aggregate is
// "sum" (the default when empty), "mean", "max", "min" or "stack"
// (graph.CrossReduce, relations in canonical order). Parameters are the
// modules', named "mods.<key>.<name>".
type HeteroGraphConv struct {
	core
	Mods      map[string]GraphModel
	Aggregate string
	keys      []string
}

// NewHeteroGraphConv builds the layer. It panics with ErrOption for no
// modules, a nil module or an unknown aggregate.
func NewHeteroGraphConv(mods map[string]GraphModel, aggregate string) *HeteroGraphConv {
	const op = "HeteroGraphConv"
	if aggregate == "" {
		aggregate = "sum"
	}
	switch aggregate {
	case "sum", "mean", "max", "min", "stack":
	default:
		panicf(ErrOption, op, "aggregate must be \"sum\", \"mean\", \"max\", \"min\" or \"stack\", got %q", aggregate)
	}
	if len(mods) == 0 {
		panicf(ErrOption, op, "no modules")
	}
	h := &HeteroGraphConv{Mods: map[string]GraphModel{}, Aggregate: aggregate}
	for k, m := range mods {
		if m == nil {
			panicf(ErrOption, op, "module for edge type %q is nil", k)
		}
		h.Mods[k] = m
		h.keys = append(h.keys, k)
	}
	sort.Strings(h.keys)
	for _, k := range h.keys {
		h.child("mods."+k, h.Mods[k])
	}
	return h
}

// Forward applies the modules: inputs maps a node type to its features
// (N_type, F_type); the result maps every destination type reached by a
// relation with a module and an input to (N_dst, F_out), or (N_dst, K,
// F_out) for "stack". Relations whose source type has no input are
// skipped, as DGL does. It panics with ErrOption naming a module key that
// is not an edge type of g or is ambiguous, a node type of inputs that g
// does not have, and with ErrShape naming the relation when its module
// rejects the features (a feature size that does not fit) or relations
// into one type give outputs of different shapes.
func (h *HeteroGraphConv) Forward(g *graph.Graph, inputs map[string]*tensor.Tensor) map[string]*tensor.Tensor {
	const op = "HeteroGraphConv.Forward"
	if g == nil {
		panicf(ErrOption, op, "graph is nil")
	}
	return h.forward(op, g.NTypes(), g.CanonicalETypes(), g.RelationGraph, inputs)
}

// forward is Forward over any graph with node types ntypesList and edge
// types ces whose relations rel gives.
func (h *HeteroGraphConv) forward(op string, ntypesList []string, ces []graph.CanonicalEType, rel func(string) graph.MessageGraph, inputs map[string]*tensor.Tensor) map[string]*tensor.Tensor {
	ntypes := map[string]bool{}
	for _, nt := range ntypesList {
		ntypes[nt] = true
	}
	for nt, x := range inputs {
		if !ntypes[nt] {
			panicf(ErrOption, op, "inputs has node type %q, which the graph does not have (have %v)", nt, ntypesList)
		}
		if x == nil {
			panicf(ErrOption, op, "inputs[%q] is nil (give the node type's features, or leave it out of inputs)", nt)
		}
	}
	etypeNames := make([]string, len(ces))
	for i, ce := range ces {
		etypeNames[i] = ce.EType
	}
	byKey := map[string]graph.CanonicalEType{}
	for _, k := range h.keys {
		var match []graph.CanonicalEType
		for _, ce := range ces {
			if ce.String() == k || ce.Key() == k {
				match = []graph.CanonicalEType{ce}
				break
			}
			if ce.EType == k {
				match = append(match, ce)
			}
		}
		if len(match) == 0 {
			panicf(ErrOption, op, "module %q: the graph has no edge type %q (have %v)", k, k, etypeNames)
		}
		if len(match) > 1 {
			names := make([]string, len(match))
			for i, ce := range match {
				names[i] = ce.String()
			}
			panicf(ErrOption, op, "module %q: edge type %q is ambiguous (%s); key the module by the canonical form", k, k, strings.Join(names, ", "))
		}
		byKey[k] = match[0]
	}
	outs := map[string][]*tensor.Tensor{}
	for _, ce := range ces { // canonical order
		var key string
		for _, k := range h.keys {
			if byKey[k] == ce {
				key = k
			}
		}
		x, ok := inputs[ce.Src]
		if key == "" || !ok {
			continue
		}
		var y *tensor.Tensor
		if err := tensor.Catch(func() { y = h.Mods[key].Forward(rel(ce.String()), x) }); err != nil {
			panicf(ErrShape, op, "relation %v (module %q) with %q features of shape %v: %v", ce, key, ce.Src, x.Shape(), err)
		}
		if prev := outs[ce.Dst]; len(prev) > 0 && fmt.Sprint(prev[0].Shape()) != fmt.Sprint(y.Shape()) {
			panicf(ErrShape, op, "relations into node type %q give outputs of shapes %v and %v (relation %v)", ce.Dst, prev[0].Shape(), y.Shape(), ce)
		}
		outs[ce.Dst] = append(outs[ce.Dst], y)
	}
	res := map[string]*tensor.Tensor{}
	for nt, ys := range outs {
		res[nt] = graph.CrossReduce(ys, h.Aggregate)
	}
	return res
}

// String describes the layer as DGL's repr does.
func (h *HeteroGraphConv) String() string {
	parts := make([]string, len(h.keys))
	for i, k := range h.keys {
		parts[i] = fmt.Sprintf("%s: %v", k, h.Mods[k])
	}
	return fmt.Sprintf("HeteroGraphConv(aggregate=%s, mods={%s})", h.Aggregate, strings.Join(parts, ", "))
}
