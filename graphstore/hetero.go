package graphstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// VersionHetero is the format version of a heterograph's file (version 1
// holds homogeneous graphs with the default type names only).
const VersionHetero = 2

// flagHetero is the header flag every version-2 file carries.
const flagHetero = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// saveHetero writes g in the version-2 layout: per node type its data
// ("n<i>/ndata/NAME"), per canonical edge type its edge list
// ("r<j>/coo/src", "r<j>/coo/dst") and data ("r<j>/edata/NAME"), and after
// the directory the schema (types, counts, checksum).
func saveHetero(path string, g *graph.Graph) error {
	var secs []section
	add := func(name string, t *tensor.Tensor) {
		secs = append(secs, section{name: name, dtype: t.DType(), shape: t.Shape(), t: t})
	}
	ntypes, ces := g.NTypes(), g.CanonicalETypes()
	var numNodes int64
	counts := make([]int64, len(ntypes))
	for i, nt := range ntypes {
		counts[i] = int64(g.NumNodesOf(nt))
		numNodes += counts[i]
		for _, n := range g.NDataNamesOf(nt) {
			add(fmt.Sprintf("n%d/ndata/%s", i, n), g.NDataOf(nt, n))
		}
	}
	edges := make([]int64, len(ces))
	for j, ce := range ces {
		k := ce.String()
		src, dst := g.EdgesOf(k)
		edges[j] = int64(src.Numel())
		add(fmt.Sprintf("r%d/coo/src", j), src)
		add(fmt.Sprintf("r%d/coo/dst", j), dst)
		for _, n := range g.EDataNamesOf(k) {
			add(fmt.Sprintf("r%d/edata/%s", j, n), g.EDataOf(k, n))
		}
	}
	for _, name := range append(append([]string(nil), ntypes...), flatten(ces)...) {
		if len(name) > 1<<16-1 {
			return fmt.Errorf("graphstore.Save %s: type name of %d bytes is too long (at most 65535): %w", path, len(name), tensor.ErrArgument)
		}
	}
	for _, s := range secs {
		if len(s.name) > 1<<16-1 {
			return fmt.Errorf("graphstore.Save %s: data name of %d bytes is too long: %w", path, len(s.name), tensor.ErrArgument)
		}
	}
	schema := encodeSchema(ntypes, counts, ces, edges)
	hd := header{version: VersionHetero, flags: flagHetero, numNodes: numNodes, numEdges: int64(g.NumEdges())}
	return writeFile(path, secs, hd, func(dir []byte) []byte {
		c := crc32.Update(crc32.Checksum(dir, castagnoli), castagnoli, schema)
		return binary.LittleEndian.AppendUint32(schema, c)
	})
}

func flatten(ces []graph.CanonicalEType) []string {
	var out []string
	for _, c := range ces {
		out = append(out, c.Src, c.EType, c.Dst)
	}
	return out
}

// encodeSchema: uint32 node type count, per type (uint16 length, name,
// int64 count); uint32 relation count, per relation (three length-prefixed
// names src, etype, dst, int64 edge count). The CRC follows.
func encodeSchema(ntypes []string, counts []int64, ces []graph.CanonicalEType, edges []int64) []byte {
	le := binary.LittleEndian
	str := func(b []byte, s string) []byte { return append(le.AppendUint16(b, uint16(len(s))), s...) }
	b := le.AppendUint32(nil, uint32(len(ntypes)))
	for i, nt := range ntypes {
		b = le.AppendUint64(str(b, nt), uint64(counts[i]))
	}
	b = le.AppendUint32(b, uint32(len(ces)))
	for j, c := range ces {
		b = le.AppendUint64(str(str(str(b, c.Src), c.EType), c.Dst), uint64(edges[j]))
	}
	return b
}

type schema struct {
	ntypes []string
	counts []int64
	ces    []graph.CanonicalEType
	edges  []int64
}

func decodeSchema(b []byte) (*schema, error) {
	le := binary.LittleEndian
	short := errors.New("schema ends early")
	u32 := func() (int, error) {
		if len(b) < 4 {
			return 0, short
		}
		v := le.Uint32(b)
		b = b[4:]
		return int(v), nil
	}
	i64 := func() (int64, error) {
		if len(b) < 8 {
			return 0, short
		}
		v := int64(le.Uint64(b))
		b = b[8:]
		return v, nil
	}
	str := func() (string, error) {
		if len(b) < 2 {
			return "", short
		}
		l := int(le.Uint16(b))
		if len(b) < 2+l {
			return "", short
		}
		s := string(b[2 : 2+l])
		b = b[2+l:]
		return s, nil
	}
	sc := &schema{}
	n, err := u32()
	if err != nil {
		return nil, err
	}
	if n > len(b)/10 {
		return nil, fmt.Errorf("schema claims %d node types in %d bytes", n, len(b))
	}
	seen := map[string]bool{}
	for range n {
		nt, err := str()
		if err != nil {
			return nil, err
		}
		c, err := i64()
		if err != nil {
			return nil, err
		}
		if c < 0 || c > 1<<50 {
			return nil, fmt.Errorf("node type %q has count %d", nt, c)
		}
		if seen[nt] {
			return nil, fmt.Errorf("node type %q appears twice", nt)
		}
		seen[nt] = true
		sc.ntypes, sc.counts = append(sc.ntypes, nt), append(sc.counts, c)
	}
	r, err := u32()
	if err != nil {
		return nil, err
	}
	if r > len(b)/14 {
		return nil, fmt.Errorf("schema claims %d edge types in %d bytes", r, len(b))
	}
	for range r {
		var c graph.CanonicalEType
		var e1, e2, e3, e4 error
		c.Src, e1 = str()
		c.EType, e2 = str()
		c.Dst, e3 = str()
		e, e4 := i64()
		if err := errors.Join(e1, e2, e3, e4); err != nil {
			return nil, err
		}
		if e < 0 {
			return nil, fmt.Errorf("edge type %v has %d edges", c, e)
		}
		sc.ces, sc.edges = append(sc.ces, c), append(sc.edges, e)
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%d bytes after the schema", len(b))
	}
	return sc, nil
}

// buildHetero makes the heterograph of a version-2 file: the schema is
// checked against its CRC, the edge lists become the relations' (owned,
// mapped) lists and the data sections the per-type data.
func buildHetero(data []byte, numNodes, numEdges, dirOff, dirLen, schemaLen int64) (*graph.Graph, error) {
	le := binary.LittleEndian
	sb := data[dirOff+dirLen : dirOff+dirLen+schemaLen-4]
	want := le.Uint32(data[dirOff+dirLen+schemaLen-4:])
	if c := crc32.Update(crc32.Checksum(data[dirOff:dirOff+dirLen], castagnoli), castagnoli, sb); c != want {
		return nil, fmt.Errorf("directory or schema is corrupted (CRC-32C %#08x, stored %#08x)", c, want)
	}
	sc, err := decodeSchema(sb)
	if err != nil {
		return nil, err
	}
	var tn, te int64
	for _, c := range sc.counts {
		tn += c
	}
	for _, e := range sc.edges {
		te += e
	}
	if tn != numNodes || te != numEdges {
		return nil, fmt.Errorf("schema has %d nodes and %d edges, the header %d and %d", tn, te, numNodes, numEdges)
	}
	byName, order, err := mapSections(data, dirOff, dirLen)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for i, nt := range sc.ntypes {
		counts[nt] = int(sc.counts[i])
	}
	edges := map[graph.CanonicalEType]graph.EdgeList{}
	for j, ce := range sc.ces {
		if _, dup := edges[ce]; dup {
			return nil, fmt.Errorf("edge type %v appears twice", ce)
		}
		src, err1 := intSection(byName, fmt.Sprintf("r%d/coo/src", j), sc.edges[j], true)
		dst, err2 := intSection(byName, fmt.Sprintf("r%d/coo/dst", j), sc.edges[j], true)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		edges[ce] = graph.EdgeList{Src: src, Dst: dst}
	}
	g, err := graph.NewHeteroOwned(counts, edges)
	if err != nil {
		return nil, err
	}
	// NewHeteroOwned sorts the types as saveHetero wrote them; a file
	// whose order differs was not written by Save.
	if fmt.Sprint(g.NTypes()) != fmt.Sprint(sc.ntypes) || fmt.Sprint(g.CanonicalETypes()) != fmt.Sprint(sc.ces) {
		return nil, fmt.Errorf("types are not in canonical order")
	}
	for _, name := range order {
		t := byName[name]
		kind, idx, rest, ok := splitName(name)
		switch {
		case !ok:
			return nil, fmt.Errorf("section %s has an unknown name", name)
		case kind == 'n' && idx < len(sc.ntypes) && strings.HasPrefix(rest, "ndata/"):
			err = g.SetNDataOf(sc.ntypes[idx], rest[6:], t)
		case kind == 'r' && idx < len(sc.ces) && strings.HasPrefix(rest, "edata/"):
			err = g.SetEDataOf(sc.ces[idx].String(), rest[6:], t)
		case kind == 'r' && idx < len(sc.ces) && (rest == "coo/src" || rest == "coo/dst"):
		default:
			return nil, fmt.Errorf("section %s has an unknown name", name)
		}
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", name, err)
		}
	}
	return g, nil
}

// splitName splits "n3/ndata/feat" into 'n', 3, "ndata/feat".
func splitName(name string) (kind byte, idx int, rest string, ok bool) {
	k := strings.IndexByte(name, '/')
	if k < 2 || (name[0] != 'n' && name[0] != 'r') {
		return 0, 0, "", false
	}
	i, err := strconv.Atoi(name[1:k])
	if err != nil || i < 0 {
		return 0, 0, "", false
	}
	return name[0], i, name[k+1:], true
}
