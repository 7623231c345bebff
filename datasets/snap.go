package datasets

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/gnnrepl/gnnrepl/graph"
)

// SNAPEdgeList is a SNAP edge list as read from the file: the directed
// edges in file order and the node count.
type SNAPEdgeList struct {
	// NumNodes is the "Nodes: N" count of the header when there is one and
	// no id reaches it, else the largest id plus one.
	NumNodes int
	// HeaderNodes and HeaderEdges are the counts the header states, -1
	// when it states none.
	HeaderNodes, HeaderEdges int
	Src, Dst                 []int64
}

// ReadSNAP reads a SNAP edge list (https://snap.stanford.edu/data/), plain or
// gzipped (recognised by its magic bytes, whatever the file name): lines
// starting with '#' are comments, every other non-empty line is
// "<src><TAB or spaces><dst>" with non-negative decimal ids; LF or CRLF line
// endings. A comment of the form "Nodes: N Edges: M" (SNAP's header) sets
// the node count, so trailing nodes without edges are kept; without it the
// node count is the largest id plus one. Ids are used as node ids as they
// are: in files whose ids are not contiguous the gaps become isolated nodes.
//
// Any line that is not a comment and does not hold exactly two ids is an
// error wrapping ErrFormat naming the file and the line; so is an edge
// count that disagrees with the header's "Edges: M", and a last line
// without its line ending (a cut file). A file of a known public release
// (email-Enron.txt.gz and ca-GrQc.txt, in folders snap-email-enron and
// snap-ca-grqc) must also have the published size and sha256, else the
// error wraps ErrChecksum. A missing file wraps
// ErrMissing. Nothing is returned with an error.
func ReadSNAP(path string) (*SNAPEdgeList, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	el := &SNAPEdgeList{HeaderNodes: -1, HeaderEdges: -1}
	var fields [][]byte
	maxID := int64(-1)
	headerLine := 0
	for {
		line, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if f.atEOFWithoutNewline() {
			return nil, f.errorf("the last line %q has no line ending: the file is truncated", clip(line))
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] == '#' {
			if n, m, ok := snapHeader(t); ok {
				el.HeaderNodes, el.HeaderEdges, headerLine = n, m, f.line
			}
			continue
		}
		u, v, fs, err := f.edgePair(fields, t)
		if err != nil {
			return nil, err
		}
		fields = fs
		el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
		maxID = max(maxID, u, v)
	}
	el.NumNodes = int(maxID + 1)
	if el.HeaderNodes >= 0 && int64(el.HeaderNodes) > maxID {
		el.NumNodes = el.HeaderNodes
	}
	if el.HeaderEdges >= 0 && el.HeaderEdges != len(el.Src) {
		return nil, lineError(path, headerLine, "the header states %d edges but the file holds %d", el.HeaderEdges, len(el.Src))
	}
	if err := checkRelease(path); err != nil {
		return nil, err
	}
	return el, nil
}

// SNAP loads a SNAP edge list (see ReadSNAP) as a directed graph with one
// edge per line, in file order (SNAP stores undirected graphs such as
// email-Enron with both directions). email-Enron gives 36,692 nodes and
// 367,662 edges.
func SNAP(path string) (*graph.Graph, error) {
	el, err := ReadSNAP(path)
	if err != nil {
		return nil, err
	}
	g, err := graph.New(el.NumNodes, el.Src, el.Dst)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", path, err)
	}
	return g, nil
}

// snapHeader parses "# Nodes: 36692 Edges: 367662" (also with tabs or
// without the edge count).
func snapHeader(comment []byte) (nodes, edges int, ok bool) {
	f := splitFields(nil, bytes.TrimLeft(comment, "# \t"))
	nodes, edges = -1, -1
	for i := 0; i+1 < len(f); i++ {
		v, err := strconv.Atoi(string(f[i+1]))
		if err != nil || v < 0 {
			continue
		}
		switch string(f[i]) {
		case "Nodes:":
			nodes, ok = v, true
		case "Edges:":
			edges = v
		}
	}
	return nodes, edges, ok
}

// clip shortens a line for an error message.
func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
