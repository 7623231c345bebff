// Package graphstore stores a graph in one binary file and opens such a
// file by memory-mapping it, so that a graph larger than RAM can be
// sampled: the opened graph's arrays and tensors are views of the mapping,
// nothing is copied, and the kernel pages them in on demand.
//
// A homogeneous graph (one node and one edge type, DGL's default names
// "_N", "_E") is stored as version 1: its in-edge adjacency (CSC: indptr,
// indices, edge ids), its edge list, an optional out-edge adjacency (CSR),
// and its node and edge data tensors. Any other graph — a heterograph
// (graph.NewHetero), or one type with other names — is stored as version
// 2 (VersionHetero): its node types and counts, its canonical edge types
// (src, etype, dst) with their edge lists, and the data of every node and
// edge type; its adjacencies are built on first use after Open.
//
// # Format (versions 1 and 2, little-endian)
//
//	offset 0, 64 bytes: header
//	  [8]byte  magic "GNNRGRPH"
//	  uint32   version (1 homogeneous, 2 heterogeneous)
//	  uint32   flags (0 in version 1, 1 in version 2)
//	  int64    number of nodes (version 2: over all node types)
//	  int64    number of edges (version 2: over all edge types)
//	  int64    directory offset
//	  int64    directory length in bytes
//	  int64    file length in bytes (detects truncation)
//	  int64    version 1: reserved (0); version 2: schema length in bytes
//	sections, each starting at a multiple of 4096 bytes: raw arrays
//	directory: uint32 count, then per section
//	  uint16 name length, name, uint8 dtype (0 float32, 1 int64, 2 bool),
//	  uint8 rank, int64 per dimension, int64 offset, int64 length in bytes
//	version 2 only, right after the directory, ending the file: schema
//	  uint32 node type count, per type: uint16 length, name, int64 count
//	  uint32 edge type count, per canonical edge type: uint16 length, src,
//	    uint16 length, etype, uint16 length, dst, int64 edge count
//	  uint32 CRC-32C (Castagnoli) of the directory and the schema before it
//
// Version 1 section names: "csc/indptr" (N+1), "csc/indices" (E),
// "csc/eids" (E, absent when edge ids are CSC positions), "coo/src" (E,
// absent with csc/eids: the edge list's sources are then csc/indices),
// "coo/dst" (E), optionally "csr/indptr", "csr/indices", "csr/eids", and
// "ndata/NAME", "edata/NAME" for every node and edge data tensor.
//
// Version 2 section names, i the index of a node type and j of a canonical
// edge type in the schema (their sorted order, the graph's): "rj/coo/src",
// "rj/coo/dst" (int64, the relation's edges in edge-id order),
// "ni/ndata/NAME" and "rj/edata/NAME" for the data. Options.CSR is ignored
// for version 2.
//
// Error policy (the engine's, see package tensor: a function with an error
// result reports bad input through it): every function returns errors
// (never panics on a bad file); they name the file and what is wrong (bad
// magic, unsupported version, truncated, a section out of bounds, a
// version-2 directory or schema failing its checksum, an inconsistent
// graph: ErrFormat). Save of a tensor on a GPU wraps tensor.ErrDevice.
package graphstore

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Magic starts every graphstore file; Version is the format version of a
// homogeneous graph's file (see VersionHetero).
const (
	Magic   = "GNNRGRPH"
	Version = 1
)

const (
	headerSize = 64
	align      = 4096
)

// ErrFormat is wrapped by every error about a file that is not a valid
// graphstore file (bad magic, version, truncation, bad directory).
var ErrFormat = engerr.NewKind("not a valid graphstore file", nil)

// Options says what Save writes besides the CSC, the edge list and the data.
type Options struct {
	// CSR also stores the out-edge adjacency (built if needed), so that
	// EdgeDir "out" sampling of the opened graph does not rebuild it.
	CSR bool
}

// Save writes g to path with default Options; see SaveWith.
func Save(path string, g *graph.Graph) error { return SaveWith(path, g, Options{}) }

// SaveWith writes g to path atomically: into a temporary file in the same
// directory, synced, then renamed over path, so a reader never sees a
// partial file. A homogeneous graph with the default type names is
// written as version 1, any other (a heterograph) as version 2 (see the
// package doc). g's data must be on the CPU. Errors name the path.
func SaveWith(path string, g *graph.Graph, o Options) error {
	if g == nil {
		return fmt.Errorf("graphstore.Save %s: graph is nil: %w", path, tensor.ErrArgument)
	}
	if !isDefaultHomogeneous(g) {
		return saveHetero(path, g)
	}
	a := g.Adj()
	var secs []section
	add := func(name string, t *tensor.Tensor) {
		secs = append(secs, section{name: name, dtype: t.DType(), shape: t.Shape(), t: t})
	}
	add("csc/indptr", tensor.FromInt64(a.Indptr))
	add("csc/indices", tensor.FromInt64(a.Indices))
	src, dst := g.Edges()
	if a.EIDs != nil {
		add("csc/eids", tensor.FromInt64(a.EIDs))
		add("coo/src", src)
	}
	add("coo/dst", dst)
	if o.CSR {
		r := g.OutAdj()
		add("csr/indptr", tensor.FromInt64(r.Indptr))
		add("csr/indices", tensor.FromInt64(r.Indices))
		if r.EIDs != nil {
			add("csr/eids", tensor.FromInt64(r.EIDs))
		}
	}
	for _, n := range g.NDataNames() {
		add("ndata/"+n, g.NData(n))
	}
	for _, n := range g.EDataNames() {
		add("edata/"+n, g.EData(n))
	}
	return writeFile(path, secs, header{version: Version, numNodes: int64(g.NumNodes()), numEdges: int64(g.NumEdges())}, nil)
}

// isDefaultHomogeneous reports whether g has one node and one edge type
// with DGL's default names, the graphs the version-1 layout holds.
func isDefaultHomogeneous(g *graph.Graph) bool {
	if !g.IsHomogeneous() {
		return false
	}
	return g.NTypes()[0] == graph.DefaultNType && g.CanonicalETypes()[0] == graph.CanonicalEType{Src: graph.DefaultNType, EType: graph.DefaultEType, Dst: graph.DefaultNType}
}

// header is what writeFile puts in the 64-byte header besides the
// directory's and the file's extent.
type header struct {
	version, flags     uint32
	numNodes, numEdges int64
}

// writeFile writes the header, the sections (each 4096-aligned), the
// directory and then trailer (version 2's schema; its length goes in the
// header's last field) to a temporary file, syncs it and renames it over
// path.
func writeFile(path string, secs []section, hd header, trailer func(dir []byte) []byte) (err error) {
	for _, s := range secs {
		if s.t.Device() != "cpu" {
			return fmt.Errorf("graphstore.Save %s: section %s is on %s; move it to the CPU first: %w", path, s.name, s.t.Device(), tensor.ErrDevice)
		}
	}

	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("graphstore.Save %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<20)
	off := int64(headerSize)
	pad := func() error {
		if r := off % align; r != 0 {
			if _, err := w.Write(make([]byte, align-r)); err != nil {
				return err
			}
			off += align - r
		}
		return nil
	}
	if _, err = w.Write(make([]byte, headerSize)); err != nil {
		return fmt.Errorf("graphstore.Save %s: %w", path, err)
	}
	for i := range secs {
		if err = pad(); err != nil {
			return fmt.Errorf("graphstore.Save %s: %w", path, err)
		}
		b := tensorBytes(secs[i].t)
		secs[i].offset, secs[i].length = off, int64(len(b))
		if _, err = w.Write(b); err != nil {
			return fmt.Errorf("graphstore.Save %s: section %s: %w", path, secs[i].name, err)
		}
		off += int64(len(b))
	}
	dir := encodeDir(secs)
	dirOff := off
	if _, err = w.Write(dir); err != nil {
		return fmt.Errorf("graphstore.Save %s: %w", path, err)
	}
	off += int64(len(dir))
	var tr []byte
	if trailer != nil {
		tr = trailer(dir)
		if _, err = w.Write(tr); err != nil {
			return fmt.Errorf("graphstore.Save %s: %w", path, err)
		}
		off += int64(len(tr))
	}
	if err = w.Flush(); err != nil {
		return fmt.Errorf("graphstore.Save %s: %w", path, err)
	}
	h := make([]byte, headerSize)
	copy(h, Magic)
	le := binary.LittleEndian
	le.PutUint32(h[8:], hd.version)
	le.PutUint32(h[12:], hd.flags)
	le.PutUint64(h[16:], uint64(hd.numNodes))
	le.PutUint64(h[24:], uint64(hd.numEdges))
	le.PutUint64(h[32:], uint64(dirOff))
	le.PutUint64(h[40:], uint64(len(dir)))
	le.PutUint64(h[48:], uint64(off))
	le.PutUint64(h[56:], uint64(len(tr)))
	if _, err = tmp.WriteAt(h, 0); err != nil {
		return fmt.Errorf("graphstore.Save %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("graphstore.Save %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("graphstore.Save %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("graphstore.Save %s: %w", path, err)
	}
	return nil
}

// section is one array of the file.
type section struct {
	name           string
	dtype          tensor.DType
	shape          []int
	offset, length int64
	t              *tensor.Tensor // when saving
}

// tensorBytes returns t's elements as bytes (shared, not copied).
func tensorBytes(t *tensor.Tensor) []byte {
	if t.Numel() == 0 {
		return nil
	}
	switch t.DType() {
	case tensor.Float32:
		d := t.Float32s()
		return unsafe.Slice((*byte)(unsafe.Pointer(&d[0])), len(d)*4)
	case tensor.Int64:
		d := t.Int64s()
		return unsafe.Slice((*byte)(unsafe.Pointer(&d[0])), len(d)*8)
	case tensor.Bool:
		d := t.Bools()
		return unsafe.Slice((*byte)(unsafe.Pointer(&d[0])), len(d))
	}
	return nil
}

func encodeDir(secs []section) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, uint32(len(secs)))
	for _, s := range secs {
		b = le.AppendUint16(b, uint16(len(s.name)))
		b = append(b, s.name...)
		b = append(b, byte(s.dtype), byte(len(s.shape)))
		for _, d := range s.shape {
			b = le.AppendUint64(b, uint64(d))
		}
		b = le.AppendUint64(b, uint64(s.offset))
		b = le.AppendUint64(b, uint64(s.length))
	}
	return b
}

// decodeDir parses the directory; errors say what is malformed.
func decodeDir(b []byte) ([]section, error) {
	le := binary.LittleEndian
	need := func(n int) error {
		if len(b) < n {
			return errors.New("directory ends early")
		}
		return nil
	}
	if err := need(4); err != nil {
		return nil, err
	}
	n := int(le.Uint32(b))
	b = b[4:]
	var secs []section
	for i := 0; i < n; i++ {
		if err := need(2); err != nil {
			return nil, err
		}
		l := int(le.Uint16(b))
		b = b[2:]
		if err := need(l + 2); err != nil {
			return nil, err
		}
		s := section{name: string(b[:l]), dtype: tensor.DType(b[l])}
		rank := int(b[l+1])
		b = b[l+2:]
		if err := need(8*rank + 16); err != nil {
			return nil, err
		}
		for k := 0; k < rank; k++ {
			d := int64(le.Uint64(b[8*k:]))
			if d < 0 {
				return nil, fmt.Errorf("section %s has negative dimension %d", s.name, d)
			}
			s.shape = append(s.shape, int(d))
		}
		b = b[8*rank:]
		s.offset, s.length = int64(le.Uint64(b)), int64(le.Uint64(b[8:]))
		b = b[16:]
		if s.dtype.Size() == 0 {
			return nil, fmt.Errorf("section %s has unknown dtype %d", s.name, s.dtype)
		}
		secs = append(secs, s)
	}
	return secs, nil
}

// mapping is the Closer Open returns.
type mapping struct {
	data []byte
	path string
}

func (m *mapping) Close() error {
	if m.data == nil {
		return nil
	}
	err := munmap(m.data)
	m.data = nil
	if err != nil {
		return fmt.Errorf("graphstore: unmapping %s: %w", m.path, err)
	}
	return nil
}

// Open memory-maps the graphstore file at path and returns the graph whose
// adjacency, edge list and data are views of the mapping, and the Closer
// that unmaps it. The graph (and every tensor or block slice taken from
// it) must not be used after Close. The mapping is private and
// copy-on-write: the file is opened read-only and never modified, and a
// write into one of the graph's tensors changes only this process's copy
// of that page. Open reads the whole CSC once to check it (graph.NewFromCSC).
// A version-2 file opens as the heterograph that was saved (the same node
// and canonical edge types in the same order, the same edges and data, bit
// for bit); its edge lists are checked once (graph.NewHeteroOwned) and its
// adjacencies are built in memory on first use.
//
// Errors name the file and wrap ErrFormat for a bad magic, an unsupported
// version, a truncated file, a malformed directory or (version 2) a
// directory or schema whose checksum does not match.
func Open(path string) (*graph.Graph, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("graphstore.Open: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("graphstore.Open %s: %w", path, err)
	}
	size := st.Size()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("graphstore.Open %s: %s: %w", path, fmt.Sprintf(format, args...), ErrFormat)
	}
	h := make([]byte, headerSize)
	if n, _ := f.ReadAt(h, 0); n < 8 || string(h[:8]) != Magic {
		return nil, nil, bad("bad magic %q (want %q)", h[:min(n, 8)], Magic)
	} else if n < headerSize {
		return nil, nil, bad("truncated: %d bytes, shorter than the %d-byte header", size, headerSize)
	}
	le := binary.LittleEndian
	v, flags := le.Uint32(h[8:]), le.Uint32(h[12:])
	if v != Version && v != VersionHetero {
		return nil, nil, bad("format version %d; this build reads versions %d and %d", v, Version, VersionHetero)
	}
	hetero := v == VersionHetero
	if hetero && flags != flagHetero {
		return nil, nil, bad("version %d file with flags %#x (want %#x)", v, flags, flagHetero)
	}
	numNodes, numEdges := int64(le.Uint64(h[16:])), int64(le.Uint64(h[24:]))
	dirOff, dirLen, fileLen := int64(le.Uint64(h[32:])), int64(le.Uint64(h[40:])), int64(le.Uint64(h[48:]))
	schemaLen := int64(0)
	if hetero {
		schemaLen = int64(le.Uint64(h[56:]))
	}
	if size < fileLen {
		return nil, nil, bad("truncated: %d bytes of %d", size, fileLen)
	}
	if numNodes < 0 || numEdges < 0 || dirOff < headerSize || dirLen < 4 || dirOff+dirLen > fileLen ||
		(hetero && (schemaLen < 12 || schemaLen > fileLen || dirOff+dirLen+schemaLen != fileLen)) {
		return nil, nil, bad("header is inconsistent (nodes %d, edges %d, directory at %d+%d, length %d)", numNodes, numEdges, dirOff, dirLen, fileLen)
	}
	if !littleEndianHost() {
		return nil, nil, fmt.Errorf("graphstore.Open %s: this machine is big-endian; the format is little-endian", path)
	}
	data, err := mmap(f, int(fileLen))
	if err != nil {
		return nil, nil, fmt.Errorf("graphstore.Open %s: mmap: %w", path, err)
	}
	m := &mapping{data: data, path: path}
	var g *graph.Graph
	if hetero {
		g, err = buildHetero(data, numNodes, numEdges, dirOff, dirLen, schemaLen)
	} else {
		g, err = build(data, numNodes, numEdges, dirOff, dirLen)
	}
	if err != nil {
		m.Close()
		if errors.Is(err, ErrFormat) {
			return nil, nil, fmt.Errorf("graphstore.Open %s: %w", path, err)
		}
		return nil, nil, fmt.Errorf("graphstore.Open %s: %w: %w", path, err, ErrFormat)
	}
	return g, m, nil
}

// build makes the graph from the mapped file.
func build(data []byte, numNodes, numEdges, dirOff, dirLen int64) (*graph.Graph, error) {
	byName, order, err := mapSections(data, dirOff, dirLen)
	if err != nil {
		return nil, err
	}
	ints := func(name string, want int64, required bool) ([]int64, error) {
		return intSection(byName, name, want, required)
	}
	indptr, err1 := ints("csc/indptr", numNodes+1, true)
	indices, err2 := ints("csc/indices", numEdges, true)
	eids, err3 := ints("csc/eids", numEdges, false)
	src, err4 := ints("coo/src", numEdges, eids != nil)
	dst, err5 := ints("coo/dst", numEdges, true)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return nil, err
	}
	if eids == nil {
		src = indices
	}
	g, err := graph.NewFromCSC(int(numNodes), indptr, indices, eids, src, dst)
	if err != nil {
		return nil, err
	}
	if _, ok := byName["csr/indptr"]; ok {
		rp, err1 := ints("csr/indptr", numNodes+1, true)
		ri, err2 := ints("csr/indices", numEdges, true)
		re, err3 := ints("csr/eids", numEdges, false)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, err
		}
		if err := g.SetOutAdj(rp, ri, re); err != nil {
			return nil, err
		}
	}
	for _, name := range order {
		t := byName[name]
		switch {
		case len(name) > 6 && name[:6] == "ndata/":
			err = g.SetNData(name[6:], t)
		case len(name) > 6 && name[:6] == "edata/":
			err = g.SetEData(name[6:], t)
		}
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", name, err)
		}
	}
	return g, nil
}

// mapSections decodes the directory and wraps every section as a tensor
// viewing data; order is the directory's order.
func mapSections(data []byte, dirOff, dirLen int64) (map[string]*tensor.Tensor, []string, error) {
	secs, err := decodeDir(data[dirOff : dirOff+dirLen])
	if err != nil {
		return nil, nil, err
	}
	byName := map[string]*tensor.Tensor{}
	var order []string
	for _, s := range secs {
		n := int64(1)
		for _, d := range s.shape {
			n *= int64(d)
		}
		if n*int64(s.dtype.Size()) != s.length {
			return nil, nil, fmt.Errorf("section %s: %d bytes for shape %v of %s", s.name, s.length, s.shape, s.dtype)
		}
		if s.offset < headerSize || s.offset%8 != 0 || s.offset+s.length > dirOff {
			return nil, nil, fmt.Errorf("section %s at %d+%d lies outside the data area [%d, %d)", s.name, s.offset, s.length, headerSize, dirOff)
		}
		b := data[s.offset : s.offset+s.length]
		var t *tensor.Tensor
		switch s.dtype {
		case tensor.Float32:
			t = tensor.FromFloat32(unsafe.Slice((*float32)(ptr(b)), n), s.shape...)
		case tensor.Int64:
			t = tensor.FromInt64(unsafe.Slice((*int64)(ptr(b)), n), s.shape...)
		case tensor.Bool:
			t = tensor.FromBool(unsafe.Slice((*bool)(ptr(b)), n), s.shape...)
		}
		if _, dup := byName[s.name]; dup {
			return nil, nil, fmt.Errorf("section %s appears twice", s.name)
		}
		byName[s.name] = t
		order = append(order, s.name)
	}
	return byName, order, nil
}

// intSection returns section name as an int64 slice of length want; a
// missing optional section is nil.
func intSection(byName map[string]*tensor.Tensor, name string, want int64, required bool) ([]int64, error) {
	t, ok := byName[name]
	if !ok {
		if required {
			return nil, fmt.Errorf("section %s is missing", name)
		}
		return nil, nil
	}
	if t.DType() != tensor.Int64 || t.Dim() != 1 || int64(t.Numel()) != want {
		return nil, fmt.Errorf("section %s is %s %v, want int64 (%d)", name, t.DType(), t.Shape(), want)
	}
	return t.Int64s(), nil
}

// ptr returns the address of b's first byte, or nil for an empty b.
func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

func littleEndianHost() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}
