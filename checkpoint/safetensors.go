package checkpoint

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/gnnrepl/gnnrepl/internal/atomicfile"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// The safetensors format (github.com/huggingface/safetensors, its README
// "Format"): an 8-byte little-endian unsigned header length N, N bytes of
// UTF-8 JSON mapping each tensor name to {"dtype", "shape",
// "data_offsets": [begin, end]} (byte offsets into the data that follows,
// which the tensors tile without gaps or overlaps) plus an optional
// "__metadata__" object of string values, padded with spaces to a
// multiple of 8 bytes, then the raw little-endian, row-major tensor data.
//
// The codec is written here rather than taken from
// github.com/nlpodyssey/safetensors: that module reads and writes the
// format, but it is a pseudo-versioned module with a generic API over its
// own tensor and dtype types, so every tensor would be copied into its
// types and back, and its errors neither name the file nor say which check
// failed; the format takes some 200 lines, and a codec of our own adds no
// dependency to go.mod.

// maxHeader bounds the JSON header, as the reference implementation does
// (100 MB): a larger length is a corrupt file, refused before allocating.
const maxHeader = 100_000_000

var dtypeNames = map[tensor.DType]string{
	tensor.Float32: "F32", tensor.Float16: "F16", tensor.BFloat16: "BF16",
	tensor.Int64: "I64", tensor.Int8: "I8", tensor.Bool: "BOOL",
}

// parseDType maps a safetensors dtype name to a tensor dtype.
func parseDType(s string) (tensor.DType, bool) {
	for d, n := range dtypeNames {
		if n == s {
			return d, true
		}
	}
	return 0, false
}

type headerEntry struct {
	DType       string  `json:"dtype"`
	Shape       []int64 `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

// SaveFile writes tensors and metadata to path as one safetensors file
// (safetensors.torch.save_file), atomically: into a temporary file in the
// same directory, synced, renamed over path, and the directory synced, so
// that path holds either its old content or the whole new file, even
// after a crash. Tensors off the CPU are copied to it; their dtypes must
// be float32 (F32), float16 (F16), bfloat16 (BF16), int64 (I64), int8
// (I8) or bool (BOOL). Tensors are stored in name order. Names must be
// non-empty and not "__metadata__". It returns an *Error of kind
// ErrArgument for a bad tensor or name and the operating system's error,
// naming path, for a failed write; path is then unchanged.
func SaveFile(path string, tensors map[string]*tensor.Tensor, metadata map[string]string) error {
	const op = "SaveFile"
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var off int64
	cpu := make([]*tensor.Tensor, len(names))
	for i, n := range names {
		t := tensors[n]
		switch {
		case n == "" || n == "__metadata__":
			return engerr.New(engerr.ErrArgument, "checkpoint", op, "%s: invalid tensor name %q", path, n)
		case t == nil:
			return engerr.New(engerr.ErrArgument, "checkpoint", op, "%s: tensor %q is nil", path, n)
		}
		dt, ok := dtypeNames[t.DType()]
		if !ok {
			return engerr.New(engerr.ErrArgument, "checkpoint", op, "%s: tensor %q has dtype %s, which safetensors cannot hold here", path, n, t.DType())
		}
		if strings.HasPrefix(t.Device(), "meta") {
			return engerr.New(engerr.ErrArgument, "checkpoint", op, "%s: tensor %q is on %s and has no values", path, n, t.Device())
		}
		if t.Device() != "cpu" {
			t = t.ToCPU()
		}
		cpu[i] = t
		shape := make([]int64, t.Dim())
		for d, s := range t.Shape() {
			shape[d] = int64(s)
		}
		size := t.Nbytes()
		header[n] = headerEntry{dt, shape, []int64{off, off + size}}
		off += size
	}
	js, err := json.Marshal(header)
	if err != nil {
		return engerr.New(engerr.ErrArgument, "checkpoint", op, "%s: encoding the header: %v", path, err)
	}
	if r := len(js) % 8; r != 0 {
		js = append(js, bytes.Repeat([]byte{' '}, 8-r)...)
	}
	buf := make([]byte, 0, 8+int64(len(js))+off)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(js)))
	buf = append(buf, js...)
	for _, t := range cpu {
		buf = appendData(buf, t)
	}
	return writeAtomic(path, buf)
}

// appendData appends t's elements, little-endian.
func appendData(b []byte, t *tensor.Tensor) []byte {
	le := binary.LittleEndian
	switch t.DType() {
	case tensor.Float32:
		for _, v := range t.Float32s() {
			b = le.AppendUint32(b, math.Float32bits(v))
		}
	case tensor.Int64:
		for _, v := range t.Int64s() {
			b = le.AppendUint64(b, uint64(v))
		}
	case tensor.Float16, tensor.BFloat16:
		for _, v := range t.Uint16s() {
			b = le.AppendUint16(b, v)
		}
	case tensor.Int8:
		for _, v := range t.Int8s() {
			b = append(b, byte(v))
		}
	case tensor.Bool:
		for _, v := range t.Bools() {
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	}
	return b
}

// writeAtomic writes data to path atomically (atomicfile.WriteFile).
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("checkpoint: writing %s: %w", path, err)
	}
	return nil
}

// LoadFile reads a safetensors file (safetensors.torch.load_file): its
// tensors by name, on the CPU, and its "__metadata__" (nil when it has
// none). Files written by PyTorch's safetensors, by hand or by SaveFile
// load alike. It returns an *Error of kind ErrFormat naming path and the
// fault, and no tensors, for a file that is not whole and valid: shorter
// than 8 bytes, a header length beyond the file size (a truncated file),
// a header that is not a JSON object of entries, an unknown or
// unsupported dtype (F64, I32, U8, ... are refused with their name), a
// negative shape, data offsets out of range or not tiling the data, or a
// BOOL byte other than 0 and 1; and the operating system's error when
// path cannot be read.
func LoadFile(path string) (map[string]*tensor.Tensor, map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint: reading %s: %w", path, err)
	}
	return decode(path, data)
}

func formatErr(path, format string, args ...any) error {
	return engerr.New(ErrFormat, "checkpoint", "", "%s: %s", path, fmt.Sprintf(format, args...))
}

// decode parses a whole safetensors file held in data.
func decode(path string, data []byte) (map[string]*tensor.Tensor, map[string]string, error) {
	if len(data) < 8 {
		return nil, nil, formatErr(path, "truncated: %d bytes, shorter than the 8-byte header length", len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > uint64(len(data)-8) {
		return nil, nil, formatErr(path, "header length %d is beyond the file size (%d bytes): the file is truncated or not safetensors", n, len(data))
	}
	if n > maxHeader {
		return nil, nil, formatErr(path, "header length %d exceeds the limit of %d bytes", n, maxHeader)
	}
	hdr, body := data[8:8+n], data[8+n:]
	if len(bytes.TrimSpace(hdr)) == 0 || bytes.TrimSpace(hdr)[0] != '{' {
		return nil, nil, formatErr(path, "the header is not a JSON object")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return nil, nil, formatErr(path, "the header is not valid JSON: %v", err)
	}
	var meta map[string]string
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, nil, formatErr(path, "__metadata__ is not an object of strings: %v", err)
		}
		delete(raw, "__metadata__")
	}
	type entry struct {
		name       string
		dt         tensor.DType
		shape      []int
		begin, end int64
	}
	entries := make([]entry, 0, len(raw))
	for name, r := range raw {
		var h headerEntry
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&h); err != nil {
			return nil, nil, formatErr(path, "tensor %q: invalid entry: %v", name, err)
		}
		dt, ok := parseDType(h.DType)
		if !ok {
			return nil, nil, formatErr(path, "tensor %q: unknown or unsupported dtype %q (supported: F32, F16, BF16, I64, I8, BOOL)", name, h.DType)
		}
		if len(h.DataOffsets) != 2 {
			return nil, nil, formatErr(path, "tensor %q: data_offsets %v is not [begin, end]", name, h.DataOffsets)
		}
		numel := int64(1)
		shape := make([]int, len(h.Shape))
		for d, s := range h.Shape {
			if s < 0 || (s > 0 && numel > math.MaxInt64/8/s) {
				return nil, nil, formatErr(path, "tensor %q: invalid shape %v", name, h.Shape)
			}
			numel *= s
			shape[d] = int(s)
		}
		b, e := h.DataOffsets[0], h.DataOffsets[1]
		if b < 0 || e < b || e > int64(len(body)) {
			return nil, nil, formatErr(path, "tensor %q: data offsets [%d, %d] out of range (the data has %d bytes): the file is truncated or corrupt", name, b, e, len(body))
		}
		if e-b != numel*int64(dt.Size()) {
			return nil, nil, formatErr(path, "tensor %q: data offsets [%d, %d] hold %d bytes, its shape %v of %s needs %d", name, b, e, e-b, h.Shape, h.DType, numel*int64(dt.Size()))
		}
		entries = append(entries, entry{name, dt, shape, b, e})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if a.begin != b.begin {
			return int(min(max(a.begin-b.begin, -1), 1))
		}
		return int(min(max(a.end-b.end, -1), 1))
	})
	var at int64
	for _, e := range entries {
		if e.begin != at {
			return nil, nil, formatErr(path, "tensor %q: data offsets [%d, %d] leave a gap or overlap at byte %d", e.name, e.begin, e.end, at)
		}
		at = e.end
	}
	if at != int64(len(body)) {
		return nil, nil, formatErr(path, "the tensors hold %d bytes of data, the file %d after the header", at, len(body))
	}
	out := make(map[string]*tensor.Tensor, len(entries))
	for _, e := range entries {
		t, err := fromBytes(e.dt, body[e.begin:e.end], e.shape)
		if err != "" {
			return nil, nil, formatErr(path, "tensor %q: %s", e.name, err)
		}
		out[e.name] = t
	}
	return out, meta, nil
}

// fromBytes decodes little-endian elements into a new CPU tensor.
func fromBytes(dt tensor.DType, b []byte, shape []int) (*tensor.Tensor, string) {
	le := binary.LittleEndian
	switch dt {
	case tensor.Float32:
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(le.Uint32(b[4*i:]))
		}
		return tensor.FromFloat32(v, shape...), ""
	case tensor.Int64:
		v := make([]int64, len(b)/8)
		for i := range v {
			v[i] = int64(le.Uint64(b[8*i:]))
		}
		return tensor.FromInt64(v, shape...), ""
	case tensor.Float16, tensor.BFloat16:
		v := make([]uint16, len(b)/2)
		for i := range v {
			v[i] = le.Uint16(b[2*i:])
		}
		return tensor.FromUint16(dt, v, shape...), ""
	case tensor.Int8:
		v := make([]int8, len(b))
		for i := range v {
			v[i] = int8(b[i])
		}
		return tensor.FromInt8(v, shape...), ""
	case tensor.Bool:
		v := make([]bool, len(b))
		for i, x := range b {
			if x > 1 {
				return nil, fmt.Sprintf("BOOL byte %d is %d, not 0 or 1", i, x)
			}
			v[i] = x == 1
		}
		return tensor.FromBool(v, shape...), ""
	}
	return nil, "unsupported dtype"
}
