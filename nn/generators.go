package nn

import "github.com/gnnrepl/gnnrepl/tensor"

// NamedGenerator is one entry of Generators: a random generator and the
// dotted name of the first module that draws from it ("" for the module
// passed to Generators itself, "layers.0" for its first layer).
type NamedGenerator struct {
	Name string
	Gen  *tensor.Generator
}

// Generators returns the random generators that m and its children draw
// their initial weights and dropout masks from, each once, in module order
// (parents before children, children in registration order). A model built
// with a Seed option has one generator shared by its layers: GraphSAGE and
// GAT hold it, so it is named "", a GCN's layers hold it, so it is named
// "layers.0". A layer built without Gen draws from
// tensor.DefaultGenerator(), which is then listed too.
// Saving their states (tensor.Generator.GetState) with the parameters is
// what lets a resumed training run draw the same dropout masks as an
// uninterrupted one (package checkpoint does it).
func Generators(m Module) []NamedGenerator {
	var out []NamedGenerator
	seen := map[*tensor.Generator]bool{}
	var walk func(prefix string, m Module)
	walk = func(prefix string, m Module) {
		if c, ok := m.(*Checkpointed); ok {
			if c != nil && c.Module != nil {
				walk(prefix, c.Module)
			}
			return
		}
		if h, ok := m.(interface{ generator() *tensor.Generator }); ok {
			if g := h.generator(); g != nil && !seen[g] {
				seen[g] = true
				out = append(out, NamedGenerator{prefix, g})
			}
		}
		if h, ok := m.(interface{ childModules() []namedModule }); ok {
			for _, ch := range h.childModules() {
				name := ch.name
				if prefix != "" {
					name = prefix + "." + name
				}
				walk(name, ch.m)
			}
		}
	}
	if m != nil {
		walk("", Unwrap(m))
	}
	return out
}

func (c *core) childModules() []namedModule { return c.children }

func (m *GraphSAGE) generator() *tensor.Generator { return m.gen }
func (m *GAT) generator() *tensor.Generator       { return m.gen }
func (c *SAGEConv) generator() *tensor.Generator  { return c.gen }
func (c *GraphConv) generator() *tensor.Generator { return c.gen }
func (c *GATConv) generator() *tensor.Generator   { return c.gen }
