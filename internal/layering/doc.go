// Package layering states gnnrepl's import rules; its test checks them
// over every package of the module, test files included. Dependencies
// point one way:
//
//	programs    cmd/..., bench       may import anything below
//	front ends  kernel/...           import the session (repl) only
//	session     repl                 imports builtins and the engine
//	builtins    builtins/...         import the engine
//	engine      everything else      imports only the engine
//
// (tensor, graph, sampling, nn, optim, amp, featstore, memplan, profile,
// datasets, graphstore, dist, runctx, kernels, acceptance and internal/... are
// the engine). A front end reaches the engine only through the session's
// API: repl.Options for its I/O (streams and the display Publisher),
// repl.Result.MIMEBundle for values, repl.Session.PreludeNotices for the
// prelude's notices.
//
// Leaf utilities that import nothing of the module (internal/atomicfile)
// may be imported by every layer.
//
// The package has no code.
package layering
