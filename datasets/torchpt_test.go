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
