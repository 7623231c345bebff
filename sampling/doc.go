// Package sampling holds gnnrepl's neighbour samplers and the DataLoader
// that batches seed nodes, samples their blocks (DGL's message flow graphs)
// and gathers their features, as DGL's dgl.dataloading.NeighborSampler,
// MultiLayerFullNeighborSampler and DataLoader.
//
// A Sampler turns a list of seed nodes into one graph.Block per layer.
// blocks[0] is the input layer: its source nodes are the nodes whose
// features enter the model. The last block's destination nodes are the
// seeds, in seed order. In every block the destination nodes come first
// among the source nodes (in order), followed by the other sampled
// neighbours in order of first appearance, so a layer takes its
// destination rows with tensor.Narrow. Every block records the parent
// graph's id of each source node (SrcData(graph.NID), SrcNodeIDs) and of
// each edge (EData(graph.EID), EIDs).
//
// # Heterographs
//
// On a graph with several node and edge types, a HeteroSampler turns seeds
// of one or more node types ({ntype: ids}) into one graph.HeteroBlock per
// layer: HeteroNeighborSampler takes a fanout per layer and edge type
// (DGL's [{etype: k}] fanouts; keys are edge type names or "src:etype:dst",
// "*" for the rest), NeighborSampler its one fanout per layer for every
// edge type. Every block has every node type and edge type, even empty;
// per node type the destination nodes come first among the source nodes.
// The picking is NeighborSampler's, per relation, with streams keyed by
// (epochSeed, layer, relation index, node): on a graph of one node type
// and one edge type the blocks equal NeighborSampler's. NewHeteroDataLoader
// batches typed seeds with the DataLoader's machinery (workers, shuffle,
// Shard, StateDict, interruption) and gathers node data per node type.
//
// # Link prediction
//
// NewEdgeDataLoader batches edge ids instead of nodes (DGL's DataLoader
// over as_edge_prediction_sampler): each batch has a positive pair graph
// (the batch's edges), a negative pair graph (a NegativeSampler's pairs:
// PerSourceUniform(k), GlobalUniform(k)), both over the batch's compacted
// nodes, and the blocks of those nodes, sampled without the batch's edges
// (Exclude "self") or without them and their reverses ("reverse_id", with
// ReverseEIDs) through an ExcludingSampler such as NeighborSampler.
//
// NewHeteroEdgeDataLoader does the same on a heterograph over {etype:
// eids} (a HeteroEdgePredictionSampler around a HeteroSampler): the pair
// graphs are heterographs with every edge type, the blocks heterogeneous,
// and Exclude may also be "reverse_types" (the batch's edges and the same
// ids of their reverse edge types, ReverseETypes) or "reverse_id" with
// per-edge-type ReverseEIDs, through a HeteroExcludingSampler
// (NeighborSampler, HeteroNeighborSampler); the negatives of each edge
// type come from a HeteroNegativeSampler (PerSourceUniform(k),
// GlobalUniform(k)) over its endpoint types.
//
// # Randomness
//
// Sampling is deterministic and independent of batching and of the number
// of workers: the random stream used to pick the neighbours of node v in
// layer l is a counter-based hash (splitmix64) of (epochSeed, l, v). The
// same node therefore gets the same neighbours in an epoch whatever batch it
// is in, whatever the batch size, the shuffle order or NumWorkers. The
// DataLoader derives epochSeed from LoaderOptions.Seed and the epoch number,
// so every epoch draws fresh samples. With excluded edges (the edge
// DataLoader's Exclude), only the nodes that hold an excluded edge draw
// differently: from their remaining edges, with the same stream. The
// negatives of an edge e are drawn from a stream keyed by (epochSeed, e).
//
// # Buffers and parallelism
//
// A large layer's neighbour picking is split over GOMAXPROCS goroutines by
// ranges of destination nodes holding equal numbers of candidate edges;
// the result is identical to picking in one goroutine.
//
// Relabelling uses a dense marker array with one int32 per graph node (no
// Go map), kept with the other scratch buffers in a sync.Pool and reused
// across calls; their bytes are counted on the "cpu" device with
// tensor.CountBytes, and the arrays of every block through its tensors.
//
// # Error policy
//
// The engine's rule (see package tensor) is that a function with an error
// result reports bad input through it. Samplers and the DataLoader all have
// one, and return errors, never panic, on bad input: invalid options (a
// negative fanout other than -1, an unknown EdgeDir, a Prob edge data that
// is missing, of the wrong dtype or shape, or holds a negative, NaN or
// infinite weight), seed ids outside [0, NumNodes), and missing node data to
// prefetch. Errors name the argument and the allowed values and wrap
// ErrArgument, which is tensor.ErrArgument (a heterogeneous graph wraps
// graph.ErrHetero, a kind of it). A panic in a sampler, which may run in a
// worker goroutine, becomes the loader's error: an engine error stays
// wrapped (errors.Is works), any other panic carries its stack. A
// DataLoader stops at the next batch when the running evaluation is
// cancelled (runctx.Err, Ctrl-C in the shell) and its Err then returns the
// context's error.
package sampling
