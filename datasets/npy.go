package datasets

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NPYArray is one array of a NumPy .npy file (or npz member), converted to
// a Go slice by kind: signed and unsigned integers and booleans to Int64,
// floats to Float32 (float64 values are rounded), fixed-width unicode
// ('<U') and byte ('|S') strings to Strings with the NUL padding removed.
// Exactly one of the three slices is set (an empty array sets none).
type NPYArray struct {
	Name  string // npz member name without ".npy", or the file name
	Descr string // the NumPy dtype descriptor, "<f4", "|i1", "<U7", ...
	Shape []int  // C order; () for a scalar

	Int64   []int64
	Float32 []float32
	Strings []string
}

// Len returns the number of elements, the product of Shape.
func (a *NPYArray) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// npyMagic starts every .npy file.
var npyMagic = []byte("\x93NUMPY")

// ParseNPY decodes one .npy file (NumPy format versions 1.0, 2.0 and 3.0;
// https://numpy.org/devdocs/reference/generated/numpy.lib.format.html):
// the magic string, the version, a little-endian header length (2 bytes in
// version 1, 4 in versions 2 and 3), a Python dict literal
// {'descr': ..., 'fortran_order': False, 'shape': (...), } and the data.
// Supported dtypes: b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8 in either
// byte order, U<n> (UTF-32) and S<n>. Fortran order, object arrays and
// structured dtypes are errors. name labels the array and the errors.
func ParseNPY(name string, data []byte) (*NPYArray, error) {
	bad := func(format string, args ...any) (*NPYArray, error) {
		return nil, fmt.Errorf("%w: %s: %s", ErrFormat, name, fmt.Sprintf(format, args...))
	}
	if len(data) < 10 || !bytes.Equal(data[:6], npyMagic) {
		return bad("not a .npy file (no \\x93NUMPY magic)")
	}
	major := data[6]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(data[8:10])), 10
	case 2, 3:
		if len(data) < 12 {
			return bad("truncated header")
		}
		hlen, start = int(binary.LittleEndian.Uint32(data[8:12])), 12
	default:
		return bad("unsupported .npy format version %d.%d", major, data[7])
	}
	if start+hlen > len(data) {
		return bad("header of %d bytes runs past the end of the file (%d bytes)", hlen, len(data))
	}
	hdr, err := parseNPYHeader(string(data[start : start+hlen]))
	if err != nil {
		return bad("header %q: %v", strings.TrimSpace(string(data[start:start+hlen])), err)
	}
	if hdr.fortran {
		return bad("Fortran-order arrays are not supported")
	}
	a := &NPYArray{Name: name, Descr: hdr.descr, Shape: hdr.shape}
	body := data[start+hlen:]
	n := a.Len()
	if len(hdr.descr) < 3 {
		return bad("unsupported dtype %q", hdr.descr)
	}
	order, kind := hdr.descr[0], hdr.descr[1]
	size, err := strconv.Atoi(hdr.descr[2:])
	if err != nil || size <= 0 || (order != '<' && order != '>' && order != '|' && order != '=') {
		return bad("unsupported dtype %q", hdr.descr)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if order == '>' {
		bo = binary.BigEndian
	}
	item := size
	if kind == 'U' {
		item = 4 * size
	}
	if len(body) != n*item {
		return bad("shape %v of %s needs %d data bytes, the file has %d", a.Shape, hdr.descr, n*item, len(body))
	}
	if n == 0 {
		return a, nil
	}
	switch {
	case kind == 'b' && size == 1:
		a.Int64 = make([]int64, n)
		for i, v := range body {
			a.Int64[i] = int64(v)
		}
	case kind == 'i' || kind == 'u':
		a.Int64 = make([]int64, n)
		for i := range a.Int64 {
			b := body[i*size : (i+1)*size]
			switch {
			case size == 1 && kind == 'i':
				a.Int64[i] = int64(int8(b[0]))
			case size == 1:
				a.Int64[i] = int64(b[0])
			case size == 2 && kind == 'i':
				a.Int64[i] = int64(int16(bo.Uint16(b)))
			case size == 2:
				a.Int64[i] = int64(bo.Uint16(b))
			case size == 4 && kind == 'i':
				a.Int64[i] = int64(int32(bo.Uint32(b)))
			case size == 4:
				a.Int64[i] = int64(bo.Uint32(b))
			case size == 8:
				v := bo.Uint64(b)
				if kind == 'u' && v > math.MaxInt64 {
					return bad("element %d (%d) does not fit int64", i, v)
				}
				a.Int64[i] = int64(v)
			default:
				return bad("unsupported dtype %q", hdr.descr)
			}
		}
	case kind == 'f':
		a.Float32 = make([]float32, n)
		for i := range a.Float32 {
			b := body[i*size : (i+1)*size]
			switch size {
			case 2:
				a.Float32[i] = halfToFloat32(bo.Uint16(b))
			case 4:
				a.Float32[i] = math.Float32frombits(bo.Uint32(b))
			case 8:
				a.Float32[i] = float32(math.Float64frombits(bo.Uint64(b)))
			default:
				return bad("unsupported dtype %q", hdr.descr)
			}
		}
	case kind == 'U':
		a.Strings = make([]string, n)
		var sb strings.Builder
		for i := range a.Strings {
			sb.Reset()
			b := body[i*item : (i+1)*item]
			for k := 0; k < size; k++ {
				r := rune(bo.Uint32(b[4*k:]))
				if r == 0 {
					break // NUL padding
				}
				if !utf8.ValidRune(r) {
					return bad("element %d holds an invalid code point U+%X", i, r)
				}
				sb.WriteRune(r)
			}
			a.Strings[i] = sb.String()
		}
	case kind == 'S':
		a.Strings = make([]string, n)
		for i := range a.Strings {
			a.Strings[i] = string(bytes.TrimRight(body[i*size:(i+1)*size], "\x00"))
		}
	default:
		return bad("unsupported dtype %q", hdr.descr)
	}
	return a, nil
}

// halfToFloat32 converts IEEE 754 binary16 bits to float32.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := int(h>>10) & 0x1f
	frac := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0:
		v := float32(frac) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | frac<<13)
}

type npyHeader struct {
	descr   string
	fortran bool
	shape   []int
}

// parseNPYHeader parses the header dict written by numpy.lib.format:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2708, 1433), }.
func parseNPYHeader(h string) (npyHeader, error) {
	var out npyHeader
	s := strings.TrimSpace(h)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return out, errors.New("not a dict")
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	seen := map[string]bool{}
	for len(s) > 0 {
		key, rest, ok := pyString(s)
		if !ok {
			return out, errors.New("expected a quoted key")
		}
		rest = strings.TrimSpace(rest)
		if !strings.HasPrefix(rest, ":") {
			return out, fmt.Errorf("expected ':' after %q", key)
		}
		rest = strings.TrimSpace(rest[1:])
		switch key {
		case "descr":
			v, r, ok := pyString(rest)
			if !ok {
				return out, errors.New("descr must be a string (structured dtypes are not supported)")
			}
			out.descr, rest = v, r
		case "fortran_order":
			switch {
			case strings.HasPrefix(rest, "False"):
				out.fortran, rest = false, rest[5:]
			case strings.HasPrefix(rest, "True"):
				out.fortran, rest = true, rest[4:]
			default:
				return out, errors.New("fortran_order must be True or False")
			}
		case "shape":
			if !strings.HasPrefix(rest, "(") {
				return out, errors.New("shape must be a tuple")
			}
			end := strings.IndexByte(rest, ')')
			if end < 0 {
				return out, errors.New("unterminated shape tuple")
			}
			out.shape = []int{}
			for _, p := range strings.Split(rest[1:end], ",") {
				p = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), "L"))
				if p == "" {
					continue
				}
				d, err := strconv.Atoi(p)
				if err != nil || d < 0 {
					return out, fmt.Errorf("bad dimension %q", p)
				}
				out.shape = append(out.shape, d)
			}
			rest = rest[end+1:]
		default:
			return out, fmt.Errorf("unexpected key %q", key)
		}
		seen[key] = true
		rest = strings.TrimSpace(rest)
		rest = strings.TrimPrefix(rest, ",")
		s = strings.TrimSpace(rest)
	}
	if !seen["descr"] || !seen["fortran_order"] || !seen["shape"] {
		return out, errors.New("needs the keys descr, fortran_order and shape")
	}
	return out, nil
}

// pyString reads a single- or double-quoted Python string literal without
// escapes at the start of s.
func pyString(s string) (val, rest string, ok bool) {
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", s, false
	}
	return s[1 : 1+end], s[2+end:], true
}

// ReadNPY reads one NumPy .npy file (see ParseNPY). The array's Name is
// the file name without ".npy". A data section shorter or longer than the
// header's shape and dtype declare (a cut file) is an error wrapping
// ErrFormat that names the file; a missing file wraps ErrMissing. A
// published file in its folder of a data directory (heco-acm/labels.npy,
// ...) must also have the published size and sha256, else the error wraps
// ErrChecksum.
func ReadNPY(path string) (*NPYArray, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s: %w", ErrMissing, path, err)
		}
		return nil, fmt.Errorf("datasets: reading %s: %w", path, err)
	}
	a, err := ParseNPY(path, data)
	if err != nil {
		return nil, err
	}
	a.Name = strings.TrimSuffix(filepath.Base(path), ".npy")
	if err := checkRelease(path); err != nil {
		return nil, err
	}
	return a, nil
}

// ReadNPZ reads every array of a NumPy .npz archive (numpy.savez or
// savez_compressed: a zip of .npy members, stored or deflated), keyed by
// member name without ".npy". Errors name the archive and the member and
// wrap ErrFormat (ErrMissing for a missing file); a cut archive fails the
// zip directory or a member's CRC-32. A published file in its folder of a
// data directory (gnnbench-npz/cora.npz, heco-acm/p_feat.npz, ...) must
// also have the published size and sha256, else the error wraps
// ErrChecksum.
func ReadNPZ(path string) (map[string]*NPYArray, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s: %w", ErrMissing, path, err)
		}
		if _, serr := os.Stat(path); serr != nil {
			return nil, fmt.Errorf("datasets: opening %s: %w", path, err)
		}
		return nil, fmt.Errorf("%w: %s: not a zip archive: %v", ErrFormat, path, err)
	}
	defer zr.Close()
	out := map[string]*NPYArray{}
	for _, m := range zr.File {
		if !strings.HasSuffix(m.Name, ".npy") {
			continue
		}
		rc, err := m.Open()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: member %s: %v", ErrFormat, path, m.Name, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: member %s: %v", ErrFormat, path, m.Name, err)
		}
		key := strings.TrimSuffix(m.Name, ".npy")
		a, err := ParseNPY(path+": "+m.Name, data)
		if err != nil {
			return nil, err
		}
		a.Name = key
		out[key] = a
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s: no .npy members", ErrFormat, path)
	}
	if err := checkRelease(path); err != nil {
		return nil, err
	}
	return out, nil
}

// npzKeys lists the keys of an npz map, sorted, for error messages.
func npzKeys(m map[string]*NPYArray) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
