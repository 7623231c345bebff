package kernels

// The PTX in ptx/ is generated from the *.cu sources (needs nvcc; see
// ../shared/DESIGN.md, "Building the CUDA kernels") and committed, so
// building gnnrepl never needs CUDA. TestPTXUpToDate fails when a source
// changed without regenerating.
//go:generate go run ./internal/genptx
