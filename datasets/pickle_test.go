package datasets

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

func readShared(t *testing.T, name, suffix string) []byte {
	t.Helper()
	b, err := os.ReadFile(PlanetoidPath(sharedData(t), name, suffix))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replaceOnce replaces the first occurrence of old in b and fails if there is
// none.
func replaceOnce(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%q not found", old)
	}
	return bytes.Replace(bytes.Clone(b), []byte(old), []byte(new), 1)
}

func TestDecodeFiles(t *testing.T) {
	m, err := decodeCSR(readShared(t, "cora", "x"))
	if err != nil {
		t.Fatal(err)
	}
	if m.rows != 140 || m.cols != 1433 || len(m.data) != int(m.indptr[140]) {
		t.Errorf("ind.cora.x: (%d, %d) nnz %d", m.rows, m.cols, len(m.data))
	}
	r, c, y, err := decodeInt2D(readShared(t, "cora", "y"))
	if err != nil {
		t.Fatal(err)
	}
	if r != 140 || c != 7 || len(y) != 140*7 {
		t.Errorf("ind.cora.y: (%d, %d) len %d", r, c, len(y))
	}
	g, err := decodeGraph(readShared(t, "cora", "graph"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.keys) != 2708 || g.keys[0] != 0 || g.keys[2707] != 2707 {
		t.Errorf("ind.cora.graph: %d keys", len(g.keys))
	}
}

// TestDecodeSurprises checks that every structural surprise is an error
// wrapping ErrFormat (never a panic or a silently wrong value).
func TestDecodeSurprises(t *testing.T) {
	x := readShared(t, "cora", "x")
	y := readShared(t, "cora", "y")
	cases := []struct {
		name   string
		decode func([]byte) error
		data   []byte
		want   string
	}{
		{"not a pickle", csr, []byte("hello world"), "protocol-2"},
		{"empty", csr, nil, "protocol-2"},
		{"truncated csr", csr, x[:len(x)/2], ""},
		{"truncated array", arr, y[:100], ""},
		{"unknown opcode", csr, []byte{0x80, 0x02, 0xff}, "malformed pickle"},
		{"foreign global", csr, []byte("\x80\x02cos\nsystem\nq\x00."), "os.system"},
		{"int64 dtype", arr, replaceOnce(t, y, "U\x02i4", "U\x02i8"), `"i8"`},
		{"big endian", arr, replaceOnce(t, y, "U\x01<", "U\x01>"), "byte order"},
		{"csc format", csr, replaceOnce(t, x, "U\x03csr", "U\x03csc"), "format"},
		{"array is not csr", csr, y, "csr_matrix"},
		{"csr is not array", arr, x, "ndarray"},
		{"array is not graph", graphDict, y, "defaultdict"},
		{"graph is not csr", csr, readShared(t, "cora", "graph"), "csr_matrix"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.decode(c.data)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error %v does not wrap ErrFormat", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

func csr(b []byte) error       { _, err := decodeCSR(b); return err }
func arr(b []byte) error       { _, _, _, err := decodeInt2D(b); return err }
func graphDict(b []byte) error { _, err := decodeGraph(b); return err }

func TestParseIndex(t *testing.T) {
	got, err := parseIndex([]byte("3\r\n1\n2\n"))
	if err != nil || len(got) != 3 || got[0] != 3 || got[2] != 2 {
		t.Errorf("parseIndex = %v, %v", got, err)
	}
	for _, bad := range []string{"", "1\n\n2\n", "1\nx\n", "-4\n"} {
		if _, err := parseIndex([]byte(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("parseIndex(%q) error %v, want ErrFormat", bad, err)
		}
	}
}

// TestAssembleSurprises feeds the assembly step inconsistent (but
// individually well-formed) files and checks the error names the file.
func TestAssembleSurprises(t *testing.T) {
	raw := map[string][]byte{}
	for _, suf := range PlanetoidSuffixes {
		raw[suf] = readShared(t, "cora", suf)
	}
	path := func(s string) string { return "DIR/cora/ind.cora." + s }
	if _, err := assemblePlanetoid("cora", raw, path); err != nil {
		t.Fatal(err)
	}
	idx := string(raw["test.index"])
	first := idx[:strings.IndexByte(idx, '\n')+1]
	cases := []struct {
		name, suffix string
		data         []byte
		want         string
	}{
		{"duplicate test id", "test.index", []byte(first + idx[len(first)*2:] + first), "occurs twice"},
		{"test ids start late", "test.index", []byte(strings.Replace(idx, "1708\n", "2708\n", 1)), "smallest test id"},
		{"fewer test ids than tx rows", "test.index", []byte(idx[len(first):]), "tx has 1000 rows"},
		{"labels of another dataset", "ty", readShared(t, "citeseer", "ty"), "classes"},
		{"features of another dataset", "tx", readShared(t, "pubmed", "tx"), "columns"},
		{"graph of another dataset", "graph", readShared(t, "citeseer", "graph"), "nodes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := make(map[string][]byte, len(raw))
			for k, v := range raw {
				r[k] = v
			}
			r[c.suffix] = c.data
			_, err := assemblePlanetoid("cora", r, path)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), path(c.suffix)) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q: want ErrFormat naming %s and mentioning %q", err, path(c.suffix), c.want)
			}
		})
	}
}
