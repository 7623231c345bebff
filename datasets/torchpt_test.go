package datasets

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// writeTorchEdgeZip writes, in torch's zip container, the file
// torch.save({"edge": t}) writes for an (m, 2) int64 tensor t with the
// values pairs: the same pickle opcodes (protocol 2) and entry names.
func writeTorchEdgeZip(tb testing.TB, path string, pairs []int64) {
	tb.Helper()
	var p bytes.Buffer
	str := func(s string) { // BINUNICODE
		p.WriteByte('X')
		binary.Write(&p, binary.LittleEndian, uint32(len(s)))
		p.WriteString(s)
	}
	binint := func(v int) { p.WriteByte('J'); binary.Write(&p, binary.LittleEndian, int32(v)) }
	p.WriteString("\x80\x02}")
	str("edge")
	p.WriteString("ctorch._utils\n_rebuild_tensor_v2\n((")
	str("storage")
	p.WriteString("ctorch\nLongStorage\n")
	str("0")
	str("cpu")
	binint(len(pairs))
	p.WriteString("tQ")
	binint(0)
	binint(len(pairs) / 2)
	binint(2)
	p.WriteByte(0x86)
	binint(2)
	binint(1)
	p.WriteString("\x86\x89ccollections\nOrderedDict\n)RtRs.")
	var z bytes.Buffer
	w := zip.NewWriter(&z)
	for _, e := range []struct {
		name string
		data []byte
	}{{"archive/data.pkl", p.Bytes()}, {"archive/data/0", binary.LittleEndian.AppendUint64(nil, 0)[:0]}, {"archive/version", []byte("3\n")}} {
		data := e.data
		if e.name == "archive/data/0" {
			for _, v := range pairs {
				data = binary.LittleEndian.AppendUint64(data, uint64(v))
			}
		}
		f, err := w.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Store})
		if err != nil {
			tb.Fatal(err)
		}
		f.Write(data)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func TestReadTorchDictGoWritten(t *testing.T) {
	pairs := make([]int64, 2000)
	for i := range pairs {
		pairs[i] = int64(i*7919) % 1000
	}
	p := filepath.Join(t.TempDir(), "train.pt")
	writeTorchEdgeZip(t, p, pairs)
	m, err := readTorchDict(p)
	if err != nil {
		t.Fatal(err)
	}
	if a := m["edge"]; a == nil || !slices.Equal(a.shape, []int{1000, 2}) || !slices.Equal(a.ints, pairs) {
		t.Errorf("edge %v", a)
	}
}

// BenchmarkReadTorchDict reads a split file of 1,048,576 "edge" pairs
// (16 MB; ogbl-collab's train.pt holds 1,179,052) in torch's zip
// container.
func BenchmarkReadTorchDict(b *testing.B) {
	pairs := make([]int64, 2<<20)
	for i := range pairs {
		pairs[i] = int64(i) % 235868
	}
	p := filepath.Join(b.TempDir(), "train.pt")
	writeTorchEdgeZip(b, p, pairs)
	b.SetBytes(int64(8 * len(pairs)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := readTorchDict(p); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadTorchDictDTypes reads testdata/ogbl/misc/dtypes_{zip,legacy}.pt
// (make_fixtures.py): every storage dtype, views with offsets and strides
// (two of them over one storage), a permuted tensor, an empty one, and
// numpy arrays of several dtypes.
func TestReadTorchDictDTypes(t *testing.T) {
	ints := map[string]struct {
		shape []int
		vals  []int64
	}{
		"sliced":   {[]int{4}, []int64{3, 4, 5, 6}},
		"shared_a": {[]int{3}, []int64{1, 5, 9}},
		"shared_b": {[]int{2, 2}, []int64{4, 6, 8, 10}},
		// arange(24).view(2, 3, 4).permute(2, 0, 1)[k][i][j] = 12i + 4j + k
		"permuted": {[]int{4, 2, 3}, []int64{0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}},
		"bool":     {[]int{3}, []int64{1, 0, 1}},
		"uint8":    {[]int{2}, []int64{0, 255}},
		"int8":     {[]int{2}, []int64{-128, 127}},
		"int16":    {[]int{2}, []int64{-300, 300}},
		"empty":    {[]int{0, 2}, []int64{}},
		"np_i4":    {[]int{2}, []int64{-7, 7}},
		"np_b1":    {[]int{2}, []int64{0, 1}},
		"np_u1":    {[]int{2}, []int64{3, 200}},
	}
	floats := map[string]struct {
		shape []int
		vals  []float32
	}{
		"half":   {[]int{3}, []float32{0.5, -2, 65504}},
		"double": {[]int{2}, []float32{1.25, -3.5}},
		"float":  {[]int{1, 2}, []float32{1.5, 2.5}},
		"np_f4":  {[]int{2}, []float32{0.25, -1}},
		"np_f8":  {[]int{2, 1}, []float32{1, 2.5}},
	}
	for _, f := range []string{"dtypes_zip.pt", "dtypes_legacy.pt"} {
		m, err := readTorchDict(filepath.Join(ogblFixtures, "misc", f))
		if err != nil {
			t.Fatal(err)
		}
		if len(m) != len(ints)+len(floats) {
			t.Errorf("%s: %d arrays, want %d", f, len(m), len(ints)+len(floats))
		}
		for k, w := range ints {
			a := m[k]
			if a == nil || !a.isInt() || !slices.Equal(a.shape, w.shape) || !slices.Equal(a.ints, w.vals) {
				t.Errorf("%s %s: %+v, want %v %v", f, k, a, w.shape, w.vals)
			}
		}
		for k, w := range floats {
			a := m[k]
			if a == nil || a.isInt() || !slices.Equal(a.shape, w.shape) || !slices.Equal(a.floats, w.vals) {
				t.Errorf("%s %s: %+v, want %v %v", f, k, a, w.shape, w.vals)
			}
		}
	}
}
