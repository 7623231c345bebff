package checkpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func sampleTensors() map[string]*tensor.Tensor {
	return map[string]*tensor.Tensor{
		"w":    tensor.FromFloat32([]float32{1, -2.5, float32(math.Inf(1)), 3e-38, 5, 6}, 2, 3),
		"ids":  tensor.FromInt64([]int64{-1, 1 << 40, 7}, 3),
		"mask": tensor.FromBool([]bool{true, false, true}, 3),
		"h":    tensor.FromFloat32([]float32{0.5, 1.5}, 2).Half(),
		"bf":   tensor.FromFloat32([]float32{0.25, -8}, 1, 2).BFloat16(),
		"q":    tensor.FromInt8([]int8{-128, 0, 127}, 3),
		"s":    tensor.FromFloat32([]float32{42}),
		"e":    tensor.Zeros(0, 4),
	}
}

func TestFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.safetensors")
	in := sampleTensors()
	meta := map[string]string{"format": "pt", "note": "héllo"}
	if err := SaveFile(path, in, meta); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n := binary.LittleEndian.Uint64(data); n%8 != 0 || data[8] != '{' {
		t.Errorf("header length %d is not 8-aligned or the header is not JSON", n)
	}
	out, m, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(m) != fmt.Sprint(meta) {
		t.Errorf("metadata %v, want %v", m, meta)
	}
	if len(out) != len(in) {
		t.Fatalf("%d tensors, want %d", len(out), len(in))
	}
	for k, w := range in {
		g := out[k]
		if g.DType() != w.DType() || !slices.Equal(g.Shape(), w.Shape()) || dump(g) != dump(w) {
			t.Errorf("%s: got %v, want %v", k, g, w)
		}
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("the directory holds %d entries after SaveFile, want only the file", len(ents))
	}
}

// TestFileCorrupt checks that every truncation and each kind of corrupt
// header is an ErrFormat error naming the file and the fault.
func TestFileCorrupt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "good.safetensors")
	if err := SaveFile(path, sampleTensors(), map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	bad := filepath.Join(dir, "bad.safetensors")
	check := func(what string, data []byte, want string) {
		t.Helper()
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ts, _, err := LoadFile(bad)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), want) || ts != nil {
			t.Errorf("%s: LoadFile = %v, want an ErrFormat naming %s and %q", what, err, bad, want)
		}
	}
	for n := 0; n < len(good); n++ {
		if err := os.WriteFile(bad, good[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadFile(bad); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), bad) {
			t.Fatalf("truncated to %d of %d bytes: %v, want ErrFormat naming the file", n, len(good), err)
		}
	}
	check("short", good[:5], "shorter than the 8-byte header length")
	huge := slices.Clone(good)
	binary.LittleEndian.PutUint64(huge, 1<<40)
	check("header length", huge, "beyond the file size")
	n := binary.LittleEndian.Uint64(good)
	hdr := string(good[8 : 8+n])
	edit := func(old, new string) []byte {
		h := strings.Replace(hdr, old, new, 1)
		if h == hdr {
			t.Fatalf("the header has no %q: %s", old, hdr)
		}
		out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
		return append(append(out, h...), good[8+n:]...)
	}
	check("dtype", edit(`"dtype":"I8"`, `"dtype":"U8"`), `unknown or unsupported dtype "U8"`)
	check("offsets", edit(`"data_offsets":[0,`, `"data_offsets":[999999,`), "out of range")
	check("shape", edit(`"shape":[2,3]`, `"shape":[3,3]`), "needs")
	check("json", edit(`{`, `[`), "not a JSON object")
	check("metadata", edit(`"__metadata__":{"k":"v"}`, `"__metadata__":{"k":1}`), "__metadata__")
	withBool := slices.Clone(good)
	off := strings.Index(hdr, `"mask":{"dtype":"BOOL","shape":[3],"data_offsets":[`)
	if off < 0 {
		t.Fatalf("no mask entry in %s", hdr)
	}
	var b, e int
	fmt.Sscanf(hdr[off+len(`"mask":{"dtype":"BOOL","shape":[3],"data_offsets":[`):], "%d,%d", &b, &e)
	withBool[8+int(n)+b] = 7
	check("bool", withBool, "BOOL byte 0 is 7")
}

func TestSaveFileErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.safetensors")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, ts := range map[string]map[string]*tensor.Tensor{
		"nil":      {"a": nil},
		"empty":    {"": tensor.Zeros(1)},
		"reserved": {"__metadata__": tensor.Zeros(1)},
	} {
		if err := SaveFile(path, ts, nil); !errors.Is(err, ErrArgument) {
			t.Errorf("%s: %v, want ErrArgument", name, err)
		}
	}
	if err := Save(path, State{Meta: map[string]string{"gnnrepl": "x"}}); !errors.Is(err, ErrArgument) {
		t.Errorf("reserved Meta key: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Error("a failed save changed the file")
	}
	if err := SaveFile(filepath.Join(dir, "no", "such", "dir.safetensors"), nil, nil); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("save into a missing directory: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in the directory after failed saves, want 1", len(ents))
	}
}

// TestLoadMismatch loads a checkpoint into objects that do not fit it:
// each is an ErrState naming the fault, and nothing changes.
func TestLoadMismatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gcn.safetensors")
	m := nn.NewGCN(nn.GCNOptions{InFeats: 8, HiddenFeats: 4, OutFeats: 3, Seed: 1})
	opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.1})
	for _, p := range m.Parameters() {
		p.SetGrad(tensor.Ones(p.Shape()...))
	}
	opt.Step()
	sched := optim.NewStepLR(opt, 2, 0.5)
	if err := Save(path, State{Model: m, Optimizer: opt, Scheduler: sched}); err != nil {
		t.Fatal(err)
	}
	snapshot := func(m nn.Module, opt optim.Optimizer) string {
		sd := opt.StateDict()
		out := fmt.Sprint(paramBits(m), opt.ParamGroups()[0].LR)
		for _, k := range sortedKeys(sd) {
			out += k + dump(sd[k])
		}
		return out
	}
	fresh := func(hidden int) (*nn.GCN, optim.Optimizer) {
		m := nn.NewGCN(nn.GCNOptions{InFeats: 8, HiddenFeats: hidden, OutFeats: 3, Seed: 2})
		o := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.3})
		return m, o
	}
	// A model of another width: names the parameter, changes nothing.
	m2, o2 := fresh(5)
	before := snapshot(m2, o2)
	err := Load(path, &State{Model: m2, Optimizer: o2})
	if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "layers.0.weight") || !strings.Contains(err.Error(), path) {
		t.Errorf("wrong-width model: %v", err)
	}
	if snapshot(m2, o2) != before {
		t.Error("a failed Load changed the model or optimizer")
	}
	// Another optimizer type.
	m3, _ := fresh(4)
	sgd := optim.NewSGD(m3.Parameters(), optim.SGDOptions{LR: 0.1})
	if err := Load(path, &State{Model: m3, Optimizer: sgd}); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "*optim.Adam") {
		t.Errorf("SGD from an Adam checkpoint: %v", err)
	}
	// The optimizer loads, the scheduler then fails: the optimizer is
	// restored.
	m4, o4 := fresh(4)
	plateau := optim.NewReduceLROnPlateau(o4, optim.ReduceLROnPlateauOptions{})
	before = snapshot(m4, o4)
	if err := Load(path, &State{Model: m4, Optimizer: o4, Scheduler: plateau}); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "StepLR") {
		t.Errorf("ReduceLROnPlateau from a StepLR checkpoint: %v", err)
	}
	if snapshot(m4, o4) != before {
		t.Error("a Load whose scheduler failed left the model or optimizer changed")
	}
	// A component the file lacks.
	m5, o5 := fresh(4)
	if err := Load(path, &State{Model: m5, Optimizer: o5, Loader: nil, Generators: map[string]*tensor.Generator{"default": tensor.DefaultGenerator()}}); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), `"default"`) {
		t.Errorf("a generator the file lacks: %v", err)
	}
	// A plain weights file holds no optimizer state.
	plain := filepath.Join(dir, "plain.safetensors")
	if err := SaveFile(plain, m.StateDict(), nil); err != nil {
		t.Fatal(err)
	}
	if err := Load(plain, &State{Model: m5, Optimizer: o5}); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "plain safetensors") {
		t.Errorf("optimizer from a plain file: %v", err)
	}
	if err := Load(plain, &State{Model: m5}); err != nil {
		t.Errorf("model from a plain file: %v", err)
	}
	if fmt.Sprint(paramBits(m5)) != fmt.Sprint(paramBits(m)) {
		t.Error("the plain file's weights did not load")
	}
}

// dump renders a tensor's dtype, shape and exact values (String rounds).
func dump(t *tensor.Tensor) string {
	t = t.ToCPU()
	var v any
	switch t.DType() {
	case tensor.Float32:
		v = t.Float32s()
	case tensor.Int64:
		v = t.Int64s()
	case tensor.Bool:
		v = t.Bools()
	case tensor.Int8:
		v = t.Int8s()
	default:
		v = t.Uint16s()
	}
	return fmt.Sprint(t.DType(), t.Shape(), v)
}
