package gen

// Exclusion is one exported name kept out of the session's tables, with the
// reason it is not for code typed in a session.
type Exclusion struct {
	Name, Why string
}

// Excluded lists, per engine package (import path), the exported names that
// the symbol tables (Extract) and the doc table (Docs) leave out: plumbing
// that is exported only because other engine packages or the front ends
// call it. Compiled engine code still uses these names; a session cannot
// name them (yaegi: `package tensor "..." has no symbol SetBLAS`), so a cell
// cannot swap the BLAS, install a second op hook or corrupt the memory
// accounting. Methods cannot be excluded: they are reached through
// reflection on their type.
//
// Docs fails when an entry names something its package does not export, so
// the list cannot go stale: delete the entry with the name.
var Excluded = map[string][]Exclusion{
	"github.com/gnnrepl/gnnrepl/tensor": {
		{"SetBLAS", "installs the GEMM behind every dense product; the front ends' start-up calls LoadOpenBLAS, BLASName reports the result"},
		{"Gemm", "the function type of SetBLAS's argument"},
		{"SetOpHook", "process-wide op hook that package profile and memplan.Measure install; a second one from a cell would break theirs"},
		{"OpHook", "the function type of SetOpHook's argument"},
		{"CountBytes", "adds engine buffers (sampler, loader and store scratch) to the memory accounting; a cell would falsify MemoryAllocated and peaks"},
		{"DropoutAt", "dropout at an explicit Philox (seed, offset), for checkpoint replay and the CPU/GPU mask tests; sessions use Dropout"},
		{"AdamStep", "the fused in-place Adam/AdamW update behind package optim; sessions use optim.NewAdam / NewAdamW"},
		{"AdamConfig", "the argument type of AdamStep"},
		{"RegisterBackend", "registers a device kind's backend (the cpu, cuda and meta backends register themselves at start); a cell would replace a device under live tensors"},
		{"BackendKind", "the argument type of RegisterBackend"},
		{"OpenBackend", "returns a device's Backend for conformance tests (tensor/backendtest) and backend packages; sessions name devices by string (To, EmptyOn)"},
		{"TensorBuffer", "hands a tensor's backend buffer to a backend implemented outside package tensor"},
	},
	"github.com/gnnrepl/gnnrepl/profile": {
		{"AddDeviceTime", "entry point for the CUDA launchers to record device time; profile.Run and Range are the session's API"},
	},
	"github.com/gnnrepl/gnnrepl/runctx": {
		{"Set", "the session sets the running evaluation's context around each cell; a cell replacing it would lose Ctrl-C / interrupt_request"},
	},
}
