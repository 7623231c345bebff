package builtins

import (
	"os"
	"sync"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// MemStats returns a human-readable table of tensor memory per device
// (allocated, peak, total allocated, allocation count), printed by the
// shell's :mem command (tensor.MemorySummary).
var MemStats func() string = tensor.MemorySummary

// BLAS names the CPU BLAS dense products use now (tensor.BLASName): OpenBLAS
// once Setup has opened it, gonum's pure-Go BLAS otherwise.
var BLAS func() string = tensor.BLASName

var setupOnce sync.Once

// Setup prepares the engine for an interactive session, once per process:
// it opens OpenBLAS for dense products when the machine has it, unless the
// environment variable GNNREPL_BLAS is "gonum". Without OpenBLAS the engine
// keeps gonum's pure-Go BLAS; that is not an error.
func Setup() {
	setupOnce.Do(func() {
		if os.Getenv("GNNREPL_BLAS") != "gonum" {
			_ = tensor.LoadOpenBLAS()
		}
	})
}
