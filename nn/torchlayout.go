package nn

// TorchTransposed returns the names of m's parameters that gnnrepl stores
// as the transpose of PyTorch's layout: the weight of every Linear
// (gnnrepl keeps it (InFeats, OutFeats) for x W, torch.nn.Linear keeps
// (out_features, in_features)), such as SAGEConv's "fc_self.weight" and
// "fc_neigh.weight", GATConv's "fc.weight" and "res_fc.weight" and
// MLPPredictor's "W1.weight". Every other parameter has torch's layout
// already (DGL's GraphConv "weight" is (in_feats, out_feats) in DGL too;
// GATConv's "attn_l" is (1, H, F) in both). A state dict exchanged with
// PyTorch (package checkpoint) transposes exactly these names.
func TorchTransposed(m Module) []string {
	var out []string
	var walk func(prefix string, m Module)
	walk = func(prefix string, m Module) {
		if c, ok := m.(*Checkpointed); ok {
			if c != nil && c.Module != nil {
				walk(prefix, c.Module)
			}
			return
		}
		if l, ok := m.(*Linear); ok && l != nil {
			out = append(out, prefix+"weight")
			return
		}
		if h, ok := m.(interface{ childModules() []namedModule }); ok {
			for _, ch := range h.childModules() {
				walk(prefix+ch.name+".", ch.m)
			}
		}
	}
	if m != nil {
		walk("", Unwrap(m))
	}
	return out
}
