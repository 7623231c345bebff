package backendtest

import (
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

func backend(t *testing.T, device string) tensor.Backend {
	b, err := tensor.OpenBackend(device)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCPU checks the CPU backend against the float64 references.
func TestCPU(t *testing.T) { RunAll(t, backend(t, "cpu")) }

// TestMeta checks that every op runs on the meta device with the CPU's
// shapes, dtypes and allocations.
func TestMeta(t *testing.T) { RunAll(t, backend(t, "meta")) }

// TestMetaCUDA checks shapes and dtypes on the meta device that counts as
// a GPU (its allocations are rounded to the caching allocator's blocks).
func TestMetaCUDA(t *testing.T) { RunAll(t, backend(t, "meta:cuda")) }

// TestCUDA runs the suite on the first GPU when there is one.
func TestCUDA(t *testing.T) {
	if !tensor.CUDAAvailable() {
		_, why := tensor.CUDAStatus()
		t.Skip("no GPU: " + why)
	}
	RunAll(t, backend(t, "cuda:0"))
}
