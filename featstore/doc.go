// Package featstore holds gnnrepl's feature stores: the node input features
// of a graph in float32, float16, bfloat16 or 8-bit quantised form, a
// degree-ordered hot cache in front of any of them, and precomputed
// propagated features (SGC / SIGN), all behind one small interface, Store,
// which the DataLoader gathers a minibatch's input features through
// (sampling.LoaderOptions.NodeFeatStores), as DGL's DataLoader fetches
// features from a feature storage.
//
// A Store is (N, F): Gather(ids) returns the rows ids as a new (len(ids), F)
// float32 tensor, dequantised, whatever the storage dtype; Bytes reports
// what the stored features take, to compare with N*F*4:
//
//	store              bytes          error of a gathered value
//	Float32            4*N*F          none
//	Float16            2*N*F          <= max(2^-11 |x|, 2^-25)
//	BFloat16           2*N*F          <= max(2^-8 |x|, 2^-134)
//	Int8               N*F + 8*N      <= scale/2 + 2^-22*max(|lo|, |hi|), scale = (hi-lo)/255 per row
//	HotCache(s)        s + 4*K*F+4*N  as s
//	Concat(s1, s2...)  sum            as each part
//
// Typical use in a session:
//
//	st, err := featstore.NewInt8(g.NData("feat"))        // 0.25x float32 on Cora
//	hot, err := featstore.NewHotCache(st, g, featstore.HotCacheOptions{Fraction: 0.1})
//	loader, err := sampling.NewDataLoader(g, seeds, sampler, sampling.LoaderOptions{
//		BatchSize: 1024, NodeFeatStores: map[string]featstore.Store{"feat": hot}})
//	for loader.Next() {
//		x := loader.Blocks()[0].SrcData("feat") // (N_in, F) float32
//		...
//	}
//	fmt.Println(hot.Stats())                              // hits=... misses=... hit_rate=...
//
// and for SIGN / SGC, propagated once, offline:
//
//	sign, err := featstore.PropagateStore(g, feat, featstore.PropagateOptions{K: 3, DType: tensor.Int8})
//
// # Memory and parallelism
//
// The bytes a store copies (Float16, BFloat16, Int8, a HotCache's fast tier
// and slot table) are counted on the "cpu" device with tensor.CountBytes
// until Close or until the store is garbage, so tensor.MemoryAllocated and
// peaks cover them; a Float32 store shares its tensor, already counted.
// Gathers of more than about 32K values are split over GOMAXPROCS
// goroutines; every Gather is safe for concurrent use.
//
// # Error policy
//
// The engine's rule (see package tensor): a function with an error result
// reports bad input through it, one without panics. Constructors have one
// and return a *featstore.Error (the engine's one type, tensor.Error),
// never panic, on bad input: a tensor of the wrong dtype, rank or device
// (ErrShape), an unknown dtype, norm or option (ErrArgument, naming the
// option and the allowed values), values a dtype cannot hold (ErrData,
// naming the row, the column and the value). Gather and GatherInto have no
// error result (they are called once per batch on ids that samplers
// produce), so misuse there panics, as tensor.IndexSelect does, with a
// *featstore.Error whose Kind is ErrIndex (naming the id, its position and
// the range), ErrShape (a short buffer) or ErrClosed (a store used after
// Close). ErrIndex, ErrShape and ErrArgument are tensor's sentinels
// themselves, so errors.Is works on the recovered value with either name,
// and the front ends recover the panic and keep the session alive. The
// DataLoader checks a store's node count up front and turns a panic in a
// worker into an error.
package featstore
