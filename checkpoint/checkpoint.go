package checkpoint

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/gnnrepl/gnnrepl/amp"
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// State is what Save writes and Load restores: any of its fields may be
// nil (left out of the file by Save, not restored by Load). It plays the
// part of the dict a PyTorch user passes to torch.save:
//
//	{"model": model.state_dict(), "optimizer": opt.state_dict(),
//	 "scheduler": sched.state_dict(), "scaler": scaler.state_dict(),
//	 "rng": torch.get_rng_state(), ...}
type State struct {
	// Model's parameters (nn.Module.NamedParameters, or its StateDict
	// where it has one) are stored as tensors under their own names
	// ("layers.0.fc_self.weight", DGL's state_dict keys) and in PyTorch's
	// layout: the weights of Linear layers (nn.TorchTransposed), which
	// gnnrepl keeps (in, out), are written as torch.nn.Linear's (out, in)
	// and transposed back by Load. The file is thus the state dict of the
	// matching DGL model, as safetensors.torch.load_file returns it. The
	// random generators the model draws dropout from (nn.Generators) are
	// saved too. A model written as a struct with an nn.Base field
	// (compiled, or declared in a session cell) is stored under its
	// field-path names (nn.Base). In a session cell, set it by assignment
	// (st.Model = m) or with nn.Register(m) inside a literal: the
	// interpreter does not convert a cell's value to nn.Module inside a
	// checkpoint.State{...} literal.
	Model nn.Module
	// Optimizer's state (Optimizer.StateDict: Adam's moments and step
	// counts, SGD's momentum buffers) is stored as tensors under
	// "optimizer." + its key ("optimizer.state.0.exp_avg"), copied to the
	// CPU; Load puts them back on each parameter's device. The groups'
	// learning rates and weight decays are kept exactly (as float64).
	Optimizer optim.Optimizer
	// Scheduler's state (its StateDict) goes into the metadata: any
	// optim.LRScheduler, or an optim.ReduceLROnPlateau.
	Scheduler Scheduler
	// Scaler's state (GradScaler.StateDict) is stored as tensors under
	// "scaler." + its key ("scaler.scale").
	Scaler *amp.GradScaler
	// Loader's position (DataLoader.StateDict: epoch, batch, seed) goes
	// into the metadata; a loaded loader continues with the next batch
	// the saved one would have handed out, mid-epoch included. A
	// *sampling.DataLoader (node or edge) or *sampling.HeteroDataLoader.
	Loader Loader
	// Generators are further random generators to save, by name: for
	// instance tensor.DefaultGenerator() (torch.get_rng_state) under
	// "default", or a generator of your own that shuffles or splits data.
	Generators map[string]*tensor.Generator
	// Meta is user metadata (epoch, metric, config), stored as entries of
	// the file's "__metadata__", which every safetensors reader shows.
	// The keys "format" and "gnnrepl" are reserved. Load replaces Meta with
	// the file's entries other than those (none: an empty map).
	Meta map[string]string
}

// Loader is what State.Loader needs of a data loader: its position as a
// state dict and back (sampling.DataLoader, sampling.HeteroDataLoader).
type Loader interface {
	StateDict() map[string]any
	LoadStateDict(sd map[string]any) error
}

// present reports whether l holds a loader (not nil, nor a nil pointer).
func present(l Loader) bool {
	if l == nil {
		return false
	}
	v := reflect.ValueOf(l)
	return v.Kind() != reflect.Pointer || !v.IsNil()
}

// Scheduler is what State.Scheduler needs of a learning-rate scheduler:
// every scheduler of package optim (the LRSchedulers and
// ReduceLROnPlateau) has these methods.
type Scheduler interface {
	StateDict() map[string]any
	LoadStateDict(sd map[string]any) error
}

// formatVersion is the version of the "gnnrepl" metadata document.
const formatVersion = 1

// doc is the JSON document stored under __metadata__["gnnrepl"]: the
// non-tensor state.
type doc struct {
	Version   int               `json:"version"`
	Model     *modelDoc         `json:"model,omitempty"`
	Optimizer *optDoc           `json:"optimizer,omitempty"`
	Scheduler map[string]any    `json:"scheduler,omitempty"`
	Scaler    *scalerDoc        `json:"scaler,omitempty"`
	Loader    map[string]any    `json:"loader,omitempty"`
	RNG       map[string][]byte `json:"rng,omitempty"`
}

type modelDoc struct {
	Type string   `json:"type"`
	Keys []string `json:"keys"`
}

type optDoc struct {
	Type        string    `json:"type"`
	LR          []float64 `json:"lr"`
	WeightDecay []float64 `json:"weight_decay"`
}

type scalerDoc struct {
	Enabled bool `json:"enabled"`
}

const (
	optPrefix    = "optimizer."
	scalerPrefix = "scaler."
)

// modelState returns m's tensors by name: its StateDict where it has one
// (parameters and any buffers), else its NamedParameters. A model declared
// in a session cell with an nn.Base is read through nn.Unwrap, so it needs
// no nn.Register.
func modelState(m nn.Module) map[string]*tensor.Tensor {
	m = nn.Unwrap(m)
	if s, ok := m.(interface {
		StateDict() map[string]*tensor.Tensor
	}); ok {
		return s.StateDict()
	}
	out := map[string]*tensor.Tensor{}
	for _, p := range m.NamedParameters() {
		out[p.Name] = p.Param
	}
	return out
}

// transposed returns the names of m's parameters stored transposed from
// torch's layout (nn.TorchTransposed).
func transposed(m nn.Module) map[string]bool {
	out := map[string]bool{}
	for _, k := range nn.TorchTransposed(m) {
		out[k] = true
	}
	return out
}

// generators returns every generator to save or restore: the model's
// under "model" / "model.<module>", then s.Generators under their names.
func (s *State) generators(op string) (map[string]*tensor.Generator, error) {
	out := map[string]*tensor.Generator{}
	if s.Model != nil {
		for _, g := range nn.Generators(s.Model) {
			name := "model"
			if g.Name != "" {
				name += "." + g.Name
			}
			out[name] = g.Gen
		}
	}
	for k, g := range s.Generators {
		if g == nil {
			return nil, engerr.New(ErrArgument, "checkpoint", op, "Generators[%q] is nil", k)
		}
		if _, ok := out[k]; ok || k == "model" || strings.HasPrefix(k, "model.") {
			return nil, engerr.New(ErrArgument, "checkpoint", op, "Generators[%q]: names starting with \"model\" are the model's own generators", k)
		}
		out[k] = g
	}
	return out, nil
}

// Save writes s to path as one safetensors file, atomically (SaveFile):
// the model's parameters under their names, the optimizer's state under
// "optimizer.", the GradScaler's under "scaler.", all as CPU tensors, and
// the rest (the optimizer's exact learning rates, the scheduler's state,
// the loader's position, the random generators' states, the names of the
// model's tensors) as one JSON document under __metadata__["gnnrepl"],
// beside "format": "pt" and s.Meta's entries. PyTorch reads the weights
// with safetensors.torch.load_file(path) (keep the keys without a
// "optimizer." or "scaler." prefix for model.load_state_dict) and the
// rest with json.loads(safe_open(path, "pt").metadata()["gnnrepl"]).
// Non-finite floats of the scheduler (ReduceLROnPlateau's best, +-Inf
// before the first metric) are written as the strings "Infinity",
// "-Infinity" and "NaN", which Python's float() reads.
//
// It returns an *Error of kind ErrArgument for a reserved Meta key, a nil
// generator or a tensor that cannot be stored, and the operating system's
// error for a failed write; path is then unchanged.
func Save(path string, s State) (err error) {
	const op = "Save"
	defer catch(&err)
	tensors := map[string]*tensor.Tensor{}
	d := doc{Version: formatVersion}
	if s.Model != nil {
		md := &modelDoc{Type: fmt.Sprintf("%T", s.Model)}
		trans := transposed(s.Model)
		for k, t := range modelState(s.Model) {
			if trans[k] && t.Dim() == 2 && !strings.HasPrefix(t.Device(), "meta") {
				t = tensor.Transpose(t.Detach().ToCPU()) // torch.nn.Linear's (out, in)
			}
			tensors[k] = t
			md.Keys = append(md.Keys, k)
		}
		slices.Sort(md.Keys)
		d.Model = md
	}
	if s.Optimizer != nil {
		od := &optDoc{Type: fmt.Sprintf("%T", s.Optimizer)}
		for _, g := range s.Optimizer.ParamGroups() {
			od.LR = append(od.LR, g.LR)
			od.WeightDecay = append(od.WeightDecay, g.WeightDecay)
		}
		for k, t := range s.Optimizer.StateDict() {
			if err := add(tensors, optPrefix+k, t); err != nil {
				return engerr.New(ErrArgument, "checkpoint", op, "%s: %v", path, err)
			}
		}
		d.Optimizer = od
	}
	if s.Scheduler != nil {
		d.Scheduler = encodeFloats(s.Scheduler.StateDict()).(map[string]any)
	}
	if s.Scaler != nil {
		d.Scaler = &scalerDoc{Enabled: s.Scaler.IsEnabled()}
		for k, t := range s.Scaler.StateDict() {
			if err := add(tensors, scalerPrefix+k, t); err != nil {
				return engerr.New(ErrArgument, "checkpoint", op, "%s: %v", path, err)
			}
		}
	}
	if present(s.Loader) {
		d.Loader = s.Loader.StateDict()
	}
	gens, err := s.generators(op)
	if err != nil {
		return err
	}
	if len(gens) > 0 {
		d.RNG = map[string][]byte{}
		for k, g := range gens {
			d.RNG[k] = g.GetState()
		}
	}
	js, err := json.Marshal(d)
	if err != nil {
		return engerr.New(ErrArgument, "checkpoint", op, "%s: encoding the state: %v", path, err)
	}
	meta := map[string]string{"format": "pt", "gnnrepl": string(js)}
	for k, v := range s.Meta {
		if k == "format" || k == "gnnrepl" {
			return engerr.New(ErrArgument, "checkpoint", op, "%s: Meta key %q is reserved", path, k)
		}
		meta[k] = v
	}
	return SaveFile(path, tensors, meta)
}

// catch turns an engine panic (a tensor op refusing a tensor) into the
// error result, so that none escapes to the session.
func catch(err *error) {
	if p := recover(); p != nil {
		if e, ok := p.(error); ok && engerr.IsEngine(p) {
			*err = e
			return
		}
		panic(p)
	}
}

// add stores t under key, refusing a key the model already uses.
func add(tensors map[string]*tensor.Tensor, key string, t *tensor.Tensor) error {
	if _, ok := tensors[key]; ok {
		return fmt.Errorf("model tensor %q collides with the optimizer's or scaler's key", key)
	}
	tensors[key] = t
	return nil
}

// encodeFloats returns v with non-finite float64s replaced by the strings
// "Infinity", "-Infinity" and "NaN", through maps and lists.
func encodeFloats(v any) any {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		case math.IsNaN(x):
			return "NaN"
		}
	case []float64:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = encodeFloats(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = encodeFloats(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = encodeFloats(e)
		}
		return out
	}
	return v
}

// decodeValues undoes encodeFloats on a JSON document decoded with
// UseNumber: numbers become int64 when integral in form, else float64,
// and "Infinity", "-Infinity", "NaN" become floats.
func decodeValues(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case string:
		switch x {
		case "Infinity":
			return math.Inf(1)
		case "-Infinity":
			return math.Inf(-1)
		case "NaN":
			return math.NaN()
		}
	case []any:
		for i := range x {
			x[i] = decodeValues(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = decodeValues(x[k])
		}
	}
	return v
}

// Load restores into s what Save wrote to path: every non-nil field of s
// from its part of the file, all or nothing. The objects must be built as
// the saved ones were (the same model and layer sizes, the same optimizer
// type over the same parameters, the same scheduler and loader options);
// their state then becomes the saved one, so that training continues
// bit-identically to a run that was never interrupted. s.Meta becomes the
// file's user metadata.
//
// A safetensors file that Save did not write (PyTorch's
// safetensors.torch.save_file(model.state_dict(), path) for a PyG or DGL
// model with the same parameter names) loads into s.Model alone; its F16
// and BF16 tensors are converted to float32, as torch's load_state_dict
// copies them.
//
// It returns an *Error of kind ErrFormat naming path for a file that is
// not whole and valid (LoadFile), of kind ErrState for a file that does
// not fit s: a parameter missing from the file, one the model lacks, or
// one of another shape (naming each), another optimizer type or parameter
// count, a scheduler or loader state the object refuses, or a non-nil
// field whose part the file lacks. Nothing in s changes then.
func Load(path string, s *State) (err error) {
	const op = "Load"
	defer catch(&err)
	if s == nil {
		return engerr.New(ErrArgument, "checkpoint", op, "%s: the state is nil", path)
	}
	tensors, meta, err := LoadFile(path)
	if err != nil {
		return err
	}
	bad := func(format string, args ...any) error {
		return engerr.New(ErrState, "checkpoint", op, "%s: %s", path, fmt.Sprintf(format, args...))
	}
	var d *doc
	if js, ok := meta["gnnrepl"]; ok {
		d = &doc{}
		dec := json.NewDecoder(strings.NewReader(js))
		dec.UseNumber()
		if err := dec.Decode(d); err != nil {
			return engerr.New(ErrFormat, "checkpoint", op, "%s: the gnnrepl metadata is not valid: %v", path, err)
		}
		if d.Version != formatVersion {
			return engerr.New(ErrFormat, "checkpoint", op, "%s: checkpoint format version %d, this gnnrepl reads version %d", path, d.Version, formatVersion)
		}
	}
	missing := func(what string) error {
		if d == nil {
			return bad("it is a plain safetensors file (no gnnrepl metadata), which holds no %s state; load it with only Model set", what)
		}
		return bad("the checkpoint holds no %s state (it was saved without one)", what)
	}

	// Check everything that can be checked without changing anything.
	var modelKeys []string
	var modelDst map[string]*tensor.Tensor
	var trans map[string]bool
	if s.Model != nil {
		if d != nil {
			if d.Model == nil {
				return missing("model")
			}
			modelKeys = d.Model.Keys
		} else {
			for k := range tensors {
				modelKeys = append(modelKeys, k)
			}
		}
		modelDst = modelState(s.Model)
		trans = transposed(s.Model)
		if err := checkModel(tensors, modelKeys, modelDst, trans); err != nil {
			return bad("%v", err)
		}
	}
	var optSD map[string]*tensor.Tensor
	if s.Optimizer != nil {
		if d == nil || d.Optimizer == nil {
			return missing("optimizer")
		}
		if t := fmt.Sprintf("%T", s.Optimizer); t != d.Optimizer.Type {
			return bad("the optimizer is a %s, the checkpoint holds the state of a %s", t, d.Optimizer.Type)
		}
		if n := len(s.Optimizer.ParamGroups()); len(d.Optimizer.LR) != n || len(d.Optimizer.WeightDecay) != n {
			return bad("the optimizer has %d parameter groups, the checkpoint %d", n, len(d.Optimizer.LR))
		}
		optSD = prefixed(tensors, optPrefix)
	}
	var schedSD map[string]any
	if s.Scheduler != nil {
		if d == nil || d.Scheduler == nil {
			return missing("scheduler")
		}
		schedSD = decodeValues(d.Scheduler).(map[string]any)
	}
	var scalerSD map[string]*tensor.Tensor
	if s.Scaler != nil {
		if d == nil || d.Scaler == nil {
			return missing("GradScaler")
		}
		if d.Scaler.Enabled != s.Scaler.IsEnabled() {
			return bad("the GradScaler is enabled=%v, the saved one was enabled=%v", s.Scaler.IsEnabled(), d.Scaler.Enabled)
		}
		scalerSD = prefixed(tensors, scalerPrefix)
	}
	var loaderSD map[string]any
	if present(s.Loader) {
		if d == nil || d.Loader == nil {
			return missing("DataLoader")
		}
		loaderSD = decodeValues(d.Loader).(map[string]any)
	}
	gens, err := s.generators(op)
	if err != nil {
		return err
	}
	if len(gens) > 0 && d == nil {
		if s.Model == nil || len(s.Generators) > 0 {
			return missing("random generator")
		}
		gens = nil // a plain weights file: the model's generators stay as they are
	}
	for k := range gens {
		st, ok := d.RNG[k]
		if !ok {
			return bad("the checkpoint holds no state for random generator %q (it has %v)", k, sortedKeys(d.RNG))
		}
		if err := tensor.NewGenerator(0).SetState(st); err != nil {
			return engerr.New(ErrFormat, "checkpoint", op, "%s: random generator %q: %v", path, k, err)
		}
	}

	// Apply the fallible parts, undoing them on a failure.
	var undo []func()
	fail := func(err error) error {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
		return bad("%v", err)
	}
	if s.Optimizer != nil {
		opt := s.Optimizer
		snap := opt.StateDict()
		var lrs, wds []float64
		for _, g := range opt.ParamGroups() {
			lrs, wds = append(lrs, g.LR), append(wds, g.WeightDecay)
		}
		if err := opt.LoadStateDict(optSD); err != nil {
			return fail(err)
		}
		for i, g := range opt.ParamGroups() {
			g.LR, g.WeightDecay = d.Optimizer.LR[i], d.Optimizer.WeightDecay[i]
		}
		undo = append(undo, func() {
			_ = opt.LoadStateDict(snap)
			for i, g := range opt.ParamGroups() {
				g.LR, g.WeightDecay = lrs[i], wds[i]
			}
		})
	}
	if s.Scheduler != nil {
		sc := s.Scheduler
		snap := sc.StateDict()
		if err := sc.LoadStateDict(schedSD); err != nil {
			return fail(err)
		}
		undo = append(undo, func() { _ = sc.LoadStateDict(snap) })
	}
	if s.Scaler != nil {
		sc := s.Scaler
		snap := sc.StateDict()
		if err := sc.LoadStateDict(scalerSD); err != nil {
			return fail(err)
		}
		undo = append(undo, func() { _ = sc.LoadStateDict(snap) })
	}
	if present(s.Loader) {
		if err := s.Loader.LoadStateDict(loaderSD); err != nil {
			return fail(err)
		}
	}

	// The checked parts cannot fail.
	for k, g := range gens {
		_ = g.SetState(d.RNG[k])
	}
	if s.Model != nil {
		tensor.NoGrad(func() {
			for _, k := range modelKeys {
				src := tensors[k]
				if src.DType() != tensor.Float32 && modelDst[k].DType() == tensor.Float32 {
					src = src.Float()
				}
				if trans[k] && src.Dim() == 2 {
					src = tensor.Transpose(src)
				}
				modelDst[k].CopyFrom(src)
			}
		})
	}
	user := map[string]string{}
	for k, v := range meta {
		if k != "format" && k != "gnnrepl" {
			user[k] = v
		}
	}
	s.Meta = user
	return nil
}

// checkModel compares the file's model tensors with the model's: the
// same names, shapes and compatible dtypes (float16 and bfloat16 load into
// float32 parameters).
func checkModel(tensors map[string]*tensor.Tensor, keys []string, dst map[string]*tensor.Tensor, trans map[string]bool) error {
	var missing, extra, mis []string
	inFile := map[string]bool{}
	for _, k := range keys {
		inFile[k] = true
		t, ok := tensors[k]
		if !ok {
			return fmt.Errorf("the metadata lists model tensor %q, which the file lacks", k)
		}
		p, ok := dst[k]
		if !ok {
			extra = append(extra, k)
			continue
		}
		want := p.Shape()
		if trans[k] && len(want) == 2 {
			want[0], want[1] = want[1], want[0] // torch.nn.Linear's (out, in)
		}
		convertible := t.DType() == p.DType() || (p.DType() == tensor.Float32 && t.DType().IsFloatingPoint())
		if !convertible || !slices.Equal(t.Shape(), want) {
			mis = append(mis, fmt.Sprintf("%s: the checkpoint has %s%v, the model %s%v", k, t.DType(), t.Shape(), p.DType(), want))
		}
	}
	for k := range dst {
		if !inFile[k] {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	slices.Sort(mis)
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing keys "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		parts = append(parts, "unexpected keys "+strings.Join(extra, ", "))
	}
	if len(mis) > 0 {
		parts = append(parts, "size mismatch for "+strings.Join(mis, "; "))
	}
	if len(parts) > 0 {
		return fmt.Errorf("loading the model: %s", strings.Join(parts, "; "))
	}
	return nil
}

// prefixed returns the tensors under prefix, with the prefix cut.
func prefixed(tensors map[string]*tensor.Tensor, prefix string) map[string]*tensor.Tensor {
	out := map[string]*tensor.Tensor{}
	for k, t := range tensors {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			out[rest] = t
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
