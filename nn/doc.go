// Package nn holds gnnrepl's neural-network modules: the Module interface
// (parameters, train / eval mode, state dicts), Linear, the graph
// convolutions of DGL's dgl.nn (GraphConv, SAGEConv, GATConv), the standard
// node-classification models built from them (GCN, GraphSAGE, GAT), and
// masked losses and metrics.
//
// Layers follow DGL's semantics (python/dgl/nn/pytorch/conv/*.py) and use
// its parameter names, so a state dict reads like DGL's: "fc_self.weight",
// "fc_neigh.weight", "attn_l", "bias". One difference: every weight is
// stored (in_feats, out_feats), as DGL's GraphConv stores its weight, so
// that a forward pass is x @ W with no transpose; torch.nn.Linear stores
// the transpose.
//
// A layer's Forward takes a graph.MessageGraph (a full graph, or a
// graph.Block produced by a sampler) and source-node features
// (NumSrcNodes, F_in), and returns destination-node features
// (NumDstNodes, F_out). On a block the destination nodes are the first
// NumDstNodes source nodes, so their own features are the first rows of
// the input (tensor.Narrow). Message passing runs on tensor.SpMM,
// tensor.SDDMM and tensor.EdgeSoftmax over g.Adj().
//
// Sparse input features: when a layer's input is a large matrix that
// needs no gradient and is mostly zeros (bag-of-words node features, such
// as Cora's 1.3% nonzeros), the layer keeps it sparse as Kipf & Welling's
// reference code does: feature dropout draws a mask for the nonzeros only,
// and the first product x W is a sparse-dense product (tensor.SpMM). The
// sparse form is cached per layer and checked against the matrix on every
// call, so full-graph training pays for it once. Results equal the dense
// computation up to float32 summation order.
//
// Featureless node types in minibatch R-GCN: on a heterograph where only
// some node types have features (ogbn-mag's papers), RGCNOptions.
// NodeEmbeddings gives each other type a learnable Embedding of InFeats per
// node (RGCN.NodeEmb, DGL's RelGraphEmbed with dgl.nn.NodeEmbedding), and
// RGCN.ForwardBlocks looks up the rows of blocks[0]'s source nodes
// (graph.NID) itself. These embeddings have sparse gradients
// (Embedding.Sparse): a batch pays only for the rows it touches, which
// optim.SparseAdam updates (RGCN.SparseParameters), while Adam updates the
// rest (RGCN.DenseParameters).
//
// Activations come in two forms, as in PyTorch. The functional forms are
// package tensor's ops (torch.nn.functional): tensor.ReLU(x),
// tensor.LeakyReLU(x, slope), tensor.ELU(x, alpha). The module forms are
// nn's ReLU{}, LeakyReLU{NegativeSlope} and ELU{Alpha} (torch.nn.ReLU,
// LeakyReLU, ELU), whose zero fields take PyTorch's defaults (0.01, 1) and
// whose Forward calls the functional form. A layer's Activation option, a
// func(*tensor.Tensor) *tensor.Tensor, takes either: tensor.ReLU, or
// nn.LeakyReLU{NegativeSlope: 0.2}.Forward.
//
// A user's own model is a struct that embeds Base (compiled, or declared
// in a session cell): its parameters and submodules are found from its
// fields by reflection and named by field path in snake_case
// ("lin1.weight", "blocks.0.fc.weight"), as torch.nn.Module names its
// attributes, so it passes wherever a Module is expected; Register(&m) is
// its super().__init__(). Parameter marks a tensor field as a parameter.
//
// Randomness: parameter initialisation and dropout masks come from a
// *tensor.Generator given in the options (tensor.DefaultGenerator when
// nil); models take a Seed and build their own generator, so the same seed
// gives the same initial weights and the same dropout masks.
//
// Error policy (the engine's, see package tensor): functions without an
// error result panic on misuse with a *nn.Error (the engine's one type,
// tensor.Error) whose Kind is one of the sentinels: ErrOption, which is
// tensor.ErrArgument, for an invalid constructor option or a nil argument,
// naming the field and the allowed values; ErrShape, which is
// tensor.ErrShape, for features that do not fit the layer or the graph;
// ErrZeroInDegree, as DGL's DGLError, when a GraphConv or GATConv meets
// destination nodes without in-edges. So errors.Is works on the recovered
// value, with nn's names or tensor's. The layer and model constructors
// (NewGraphConv, NewGCN, NewLinear, ...) take only sizes and options and
// have no error result: an invalid option panics, as an op does on a bad
// shape. The front ends recover these panics. Functions with an error
// result (LoadStateDict, CheckZeroInDegree) return errors instead.
package nn
