package builtins

// One line per engine package exposed to the interpreter. The doc generator
// and TestGeneratedUpToDate read the package list from these lines, so adding
// a package here is all it takes (then run `go generate ./builtins/`). The
// engine plumbing listed in internal/gen/exclude.go, with the reason for
// each name, is left out of both tables.
//
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/runctx
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/tensor
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/graph
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/sampling
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/featstore
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/datasets
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/graphstore
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/profile
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/nn
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/optim
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/amp
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/memplan
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/metrics
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/checkpoint
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/dist
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/must
//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/builtins/display

// The doc table must come after the symbol tables.
//
//go:generate go run ./internal/gendoc -o docs_gen.go
