package datasets

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// npyBytes builds a .npy file as numpy.lib.format.write_array does: the
// header dict padded with spaces and a newline to a multiple of 64 bytes.
func npyBytes(major byte, descr, shape string, data []byte) []byte {
	dict := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }"
	pre := 10
	if major > 1 {
		pre = 12
	}
	pad := 64 - (pre+len(dict)+1)%64
	dict += strings.Repeat(" ", pad%64) + "\n"
	var b bytes.Buffer
	b.Write(npyMagic)
	b.WriteByte(major)
	b.WriteByte(0)
	if major == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(len(dict)))
	}
	b.WriteString(dict)
	b.Write(data)
	return b.Bytes()
}

func le(vals ...any) []byte {
	var b bytes.Buffer
	for _, v := range vals {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

func utf32(width int, ss ...string) []byte {
	var b bytes.Buffer
	for _, s := range ss {
		rs := []rune(s)
		for k := 0; k < width; k++ {
			var r rune
			if k < len(rs) {
				r = rs[k]
			}
			binary.Write(&b, binary.LittleEndian, uint32(r))
		}
	}
	return b.Bytes()
}

func TestParseNPY(t *testing.T) {
	a, err := ParseNPY("f", npyBytes(1, "<f4", "(2, 2)", le(float32(1), float32(-2.5), float32(0), float32(3))))
	if err != nil || !slices.Equal(a.Shape, []int{2, 2}) || !slices.Equal(a.Float32, []float32{1, -2.5, 0, 3}) {
		t.Errorf("<f4: %+v %v", a, err)
	}
	a, err = ParseNPY("i1", npyBytes(1, "|i1", "(3,)", []byte{0, 6, 0xff}))
	if err != nil || !slices.Equal(a.Int64, []int64{0, 6, -1}) {
		t.Errorf("|i1: %+v %v", a, err)
	}
	be := []byte{0, 0, 1, 0, 0xff, 0xff, 0xff, 0xfe}
	a, err = ParseNPY("be", npyBytes(2, ">i4", "(2,)", be))
	if err != nil || !slices.Equal(a.Int64, []int64{256, -2}) {
		t.Errorf(">i4 v2: %+v %v", a, err)
	}
	a, err = ParseNPY("i8", npyBytes(3, "<i8", "()", le(int64(-7))))
	if err != nil || len(a.Shape) != 0 || !slices.Equal(a.Int64, []int64{-7}) {
		t.Errorf("scalar <i8 v3: %+v %v", a, err)
	}
	a, err = ParseNPY("f8", npyBytes(1, "<f8", "(2,)", le(0.1, math.Inf(-1))))
	if err != nil || a.Float32[0] != float32(0.1) || !math.IsInf(float64(a.Float32[1]), -1) {
		t.Errorf("<f8: %+v %v", a, err)
	}
	a, err = ParseNPY("f2", npyBytes(1, "<f2", "(3,)", le(uint16(0x3c00), uint16(0xc000), uint16(0x0001))))
	if err != nil || a.Float32[0] != 1 || a.Float32[1] != -2 || a.Float32[2] != float32(math.Ldexp(1, -24)) {
		t.Errorf("<f2: %+v %v", a, err)
	}
	a, err = ParseNPY("b1", npyBytes(1, "|b1", "(2,)", []byte{1, 0}))
	if err != nil || !slices.Equal(a.Int64, []int64{1, 0}) {
		t.Errorf("|b1: %+v %v", a, err)
	}
	a, err = ParseNPY("U", npyBytes(1, "<U5", "(3,)", utf32(5, "Cora", "中国好", "abcde")))
	if err != nil || !slices.Equal(a.Strings, []string{"Cora", "中国好", "abcde"}) {
		t.Errorf("<U5: %+v %v", a, err)
	}
	a, err = ParseNPY("S", npyBytes(1, "|S3", "(2,)", []byte("ab\x00xyz")))
	if err != nil || !slices.Equal(a.Strings, []string{"ab", "xyz"}) {
		t.Errorf("|S3: %+v %v", a, err)
	}
	a, err = ParseNPY("empty", npyBytes(1, "<f4", "(0, 3)", nil))
	if err != nil || a.Len() != 0 || a.Float32 != nil {
		t.Errorf("empty: %+v %v", a, err)
	}

	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"magic", []byte("PK\x03\x04 not npy at all"), "no \\x93NUMPY magic"},
		{"short", npyBytes(1, "<f4", "(3,)", le(float32(1))), "needs 12 data bytes, the file has 4"},
		{"fortran", bytes.Replace(npyBytes(1, "<f4", "(1,)", le(float32(1))), []byte("False"), []byte("True "), 1), "Fortran"},
		{"object", npyBytes(1, "|O", "(1,)", make([]byte, 8)), "unsupported dtype"},
		{"complex", npyBytes(1, "<c8", "(1,)", make([]byte, 8)), "unsupported dtype"},
		{"version", append(append([]byte{}, npyMagic...), 9, 0, 0, 0), "version 9.0"},
		{"badshape", npyBytes(1, "<f4", "(x,)", nil), "bad dimension"},
		{"code point", npyBytes(1, "<U1", "(1,)", le(uint32(0xD800))), "invalid code point"},
	} {
		a, err := ParseNPY(c.name, c.data)
		if a != nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: %v, %v; want ErrFormat naming it and containing %q", c.name, a, err, c.want)
		}
	}
}

func writeNPZ(t *testing.T, path string, members map[string][]byte, deflate bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		method := zip.Store
		if deflate {
			method = zip.Deflate
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: k + ".npy", Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(members[k])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestReadNPZ(t *testing.T) {
	dir := t.TempDir()
	for _, deflate := range []bool{false, true} {
		p := filepath.Join(dir, "x.npz")
		writeNPZ(t, p, map[string][]byte{
			"a": npyBytes(1, "<i4", "(2,)", le(int32(4), int32(5))),
			"b": npyBytes(1, "<U2", "(1,)", utf32(2, "hi")),
		}, deflate)
		m, err := ReadNPZ(p)
		if err != nil || len(m) != 2 || !slices.Equal(m["a"].Int64, []int64{4, 5}) || m["b"].Strings[0] != "hi" || m["a"].Name != "a" {
			t.Errorf("deflate=%v: %v %v", deflate, m, err)
		}
	}
	p := filepath.Join(dir, "bad.npz")
	writeNPZ(t, p, map[string][]byte{"a": npyBytes(1, "<i4", "(3,)", le(int32(4)))}, false)
	if _, err := ReadNPZ(p); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "bad.npz: a.npy") {
		t.Errorf("bad member: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "plain.npz"), []byte("not a zip"), 0o644)
	if _, err := ReadNPZ(filepath.Join(dir, "plain.npz")); !errors.Is(err, ErrFormat) {
		t.Errorf("not a zip: %v", err)
	}
	if _, err := ReadNPZ(filepath.Join(dir, "none.npz")); !errors.Is(err, ErrMissing) {
		t.Errorf("missing: %v", err)
	}
}
