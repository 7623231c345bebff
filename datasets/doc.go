// Package datasets loads real graph datasets from their original public file
// formats, and downloads the files when they are missing.
//
// Planetoid (Cora, CiteSeer, PubMed; Yang, Cohen and Salakhutdinov, "Revisiting
// Semi-Supervised Learning with Graph Embeddings", ICML 2016) is read from the
// eight original `ind.<name>.<suffix>` files, Python 2 protocol-2 pickles, and
// assembled exactly as the reference `load_data` of Kipf and Welling
// (tkipf/gcn, gcn/utils.py) does: see LoadPlanetoidRaw.
//
// Data directory. Loaders take a directory (see DataDir: a flag, else the
// environment variable GNNREPL_DATA, else a user cache directory). Planetoid
// files live in <dir>/<name>/ind.<name>.<suffix>. A missing file is downloaded
// from a public mirror (PlanetoidMirrors) through HTTPClient into a temporary
// file in the same folder, checked against its pinned size and sha256, and
// renamed into place. Files already present are checked against the same
// checksum before they are parsed, so a corrupt or truncated file is reported
// by name and never half-loaded.
//
// Truncated or corrupt input. Every loader fails on a cut file rather than
// return a smaller graph: text loaders require the last line's line ending
// and name the file and line of what is wrong, counts the format declares
// (a SNAP header's edges, OGB's num-node-list, a published split size, the
// triples of AIFB and MUTAG) are checked, gzip streams are checked by their
// CRC and length, npz members by their CRC, .npy data against the header's
// shape and dtype, pickles for completeness, torch.save'd .pt files (OGB's
// link splits) by their zip entries' CRCs or, in torch's legacy container,
// which has no checksum, by every byte count. The other published files a
// loader reads (Facebook, SNAP email-Enron and ca-GrQc, gnn-benchmark npz,
// AIFB, MUTAG, HeCo ACM) are in addition checked against their pinned size
// and sha256 when they lie in their dataset's folder of a data directory
// (facebook-page-page/facebook_edges.csv, ...), after the structural checks;
// a mismatch wraps ErrChecksum. Text is UTF-8 as these releases document
// (pickled strings are bytes, read as Python 2 str, i.e. Latin-1).
//
// Error policy (the engine's, see package tensor): misuse of a function
// without an error result (a features slice whose length is not n*f for
// RowNormalize, a non-positive scale for ProductsLike) panics with an
// error wrapping ErrShape or ErrArgument. A function with an error result
// reports bad arguments through it: an unknown dataset name, an invalid
// generator option or split size is an error wrapping ErrArgument.
// ErrShape and ErrArgument are kinds of tensor's sentinels, so errors.Is
// with tensor.ErrShape or tensor.ErrArgument holds for them, and
// tensor.Catch converts those panics. I/O, network and data-format
// problems return wrapped errors that name the file and wrap ErrMissing,
// ErrChecksum or ErrFormat, so callers can test them with errors.Is.
// Nothing here calls log.Fatal or os.Exit.
package datasets

import "github.com/gnnrepl/gnnrepl/internal/engerr"

var (
	// ErrMissing is wrapped by the error returned when a data file is absent
	// and could not be downloaded.
	ErrMissing = engerr.NewKind("datasets: data file missing", nil)

	// ErrChecksum is wrapped by the error returned when a data file (on disk
	// or downloaded) does not have its pinned size and sha256.
	ErrChecksum = engerr.NewKind("datasets: checksum mismatch", nil)

	// ErrFormat is wrapped by the error returned when a data file does not
	// have the structure its format documents.
	ErrFormat = engerr.NewKind("datasets: unexpected file structure", nil)

	// ErrShape is the panic value (wrapped) when slice lengths and the given
	// dimensions disagree. It is a kind of tensor.ErrShape: errors.Is(err,
	// tensor.ErrShape) holds too.
	ErrShape = engerr.NewKind("datasets: shape mismatch", engerr.ErrShape)

	// ErrArgument is wrapped by the error returned for an invalid argument
	// such as an unknown dataset name. It is a kind of tensor.ErrArgument:
	// errors.Is(err, tensor.ErrArgument) holds too. (It is not that value
	// itself, as sampling's and featstore's are, because its text is part
	// of datasets' messages: "datasets: invalid argument: unknown ...".)
	ErrArgument = engerr.NewKind("datasets: invalid argument", engerr.ErrArgument)
)
