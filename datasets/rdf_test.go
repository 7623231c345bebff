package datasets

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadAIFB checks the graph against DGL's AIFBDataset statistics
// (7,262 nodes, 48,810 edges including reverse edges, 140/36 split, 4
// classes) on the shared data's file.
func TestLoadAIFB(t *testing.T) {
	d, err := LoadAIFB(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	checkRDF(t, d, 7262, 48810, 104, 140, 36, 4)
}

// TestLoadMUTAG checks MUTAG against the R-GCN paper's statistics (Table
// 1: 23,644 entities, every one of the 74,227 triples an edge and its
// reverse, 272/68 split, 2 classes), and that a structure instance is one
// node linking its compound to its structure type (DGL's MUTAGDataset
// makes it two unconnected nodes).
func TestLoadMUTAG(t *testing.T) {
	d, err := LoadMUTAG(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	checkRDF(t, d, 23644, 2*74227, 52, 272, 68, 2)
	if d.NumUsed != d.NumTriples {
		t.Errorf("%d of %d triples used", d.NumUsed, d.NumTriples)
	}
	hs, ty := d.Graph.NumNodesOf("hasStructure"), `("hasStructure", "22-rdf-syntax-ns#type", "SCHEMA")`
	if n := d.Graph.NumEdgesOf(`("d", "hasStructure", "hasStructure")`); n != 3526 || hs != 3526 {
		t.Fatalf("hasStructure: %d edges, %d nodes; want 3526 each", n, hs)
	}
	if n := d.Graph.NumEdgesOf(ty); n != hs {
		t.Errorf("%s: %d edges; want one rdf:type per structure instance (%d)", ty, n, hs)
	}
}

func checkRDF(t *testing.T, d *RDFDataset, nodes, edges, rels, train, test, classes int) {
	t.Helper()
	gotN, gotE := 0, 0
	for _, nt := range d.Graph.NTypes() {
		gotN += d.Graph.NumNodesOf(nt)
	}
	names := map[string]bool{}
	for _, ce := range d.Graph.CanonicalETypes() {
		gotE += d.Graph.NumEdgesOf(ce.String())
		names[ce.EType] = true
	}
	if gotN != nodes || gotE != edges || len(d.Graph.CanonicalETypes()) != rels {
		t.Errorf("%s: %d nodes, %d edges, %d canonical edge types; want %d, %d, %d", d.Name, gotN, gotE,
			len(d.Graph.CanonicalETypes()), nodes, edges, rels)
	}
	for name := range names {
		if !strings.HasPrefix(name, "rev-") && !names["rev-"+name] {
			t.Errorf("%s: relation %q has no reverse", d.Name, name)
		}
	}
	if d.TrainIdx.Size(0) != train || d.TestIdx.Size(0) != test || d.NumClasses != classes {
		t.Errorf("%s: train %d, test %d, %d classes; want %d, %d, %d", d.Name, d.TrainIdx.Size(0), d.TestIdx.Size(0), d.NumClasses, train, test, classes)
	}
	lab := d.Labels.Int64s()
	seen := map[int64]bool{}
	for _, idx := range [][]int64{d.TrainIdx.Int64s(), d.TestIdx.Int64s()} {
		for _, i := range idx {
			if lab[i] < 0 || lab[i] >= int64(classes) || seen[i] {
				t.Fatalf("%s: node %d: label %d, seen before %v", d.Name, i, lab[i], seen[i])
			}
			seen[i] = true
		}
	}
	if got := d.Graph.NDataOf(d.PredictCategory, "labels"); got.Size(0) != d.Graph.NumNodesOf(d.PredictCategory) {
		t.Errorf("labels: %v", got.Shape())
	}
}

// TestLoadNTriplesSyntax parses every term form and rejects malformed
// lines with an error naming the file and line.
func TestLoadNTriplesSyntax(t *testing.T) {
	dir := t.TempDir()
	good := "# comment\n\n<http://a/s> <http://a/p> \"x\\\"y\\u00e9\\n\"^^<http://www.w3.org/2001/XMLSchema#string> .\n" +
		"_:b1 <http://a/p> \"chat\"@fr .\n<http://a/s>\t<http://a/p>\t_:b.2 . # trailing comment\n"
	p := filepath.Join(dir, "good.nt")
	os.WriteFile(p, []byte(good), 0o644)
	tr, err := LoadNTriples(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 3 || tr[0].Object.Value != "x\"y\u00e9\n" || tr[0].Object.Datatype == "" ||
		tr[1].Subject.Kind != BlankNode || tr[1].Object.Lang != "fr" || tr[2].Object.Value != "b.2" {
		t.Fatalf("parsed %+v", tr)
	}
	for _, bad := range []string{
		"<http://a/s> <http://a/p> <http://a/o>\n",         // no final dot
		"\"lit\" <http://a/p> <http://a/o> .\n",            // literal subject
		"<http://a/s> _:p <http://a/o> .\n",                // blank predicate
		"<http://a/s> <http://a/p> \"open .\n",             // unterminated string
		"<http://a/s> <http://a/p> <http://a/o> . x\n",     // junk after the dot
		"<http://a/s> <http://a/p> \"\\q\" .\n",            // bad escape
		"<http://a/s b> <http://a/p> <http://a/o> .\n",     // space in an IRI
		"<http://a/s> <http://a/p> <http://a/o> .",         // no line ending: cut
		"<http://a/s> <http://a/p> \"x\"^^<http://a/t .\n", // open datatype
	} {
		p := filepath.Join(dir, "bad.nt")
		os.WriteFile(p, []byte("<http://a/s> <http://a/p> <http://a/o> .\n"+bad), 0o644)
		_, err := LoadNTriples(p)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "bad.nt:2:") {
			t.Errorf("%q: got %v, want ErrFormat naming bad.nt:2", bad, err)
		}
	}
}

// TestLoadAIFBTruncated cuts the real gzip file: a cut stream, a cut last
// line and a file with whole lines missing are all errors naming the file.
func TestLoadAIFBTruncated(t *testing.T) {
	src := sharedData(t)
	raw, err := os.ReadFile(filepath.Join(src, AIFBFolder, "aifb_stripped.nt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if _, err := plain.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	text := plain.Bytes()
	cutLine := text[:bytes.LastIndexByte(text[:len(text)/2], '\n')+20]
	wholeLines := text[:bytes.LastIndexByte(text[:len(text)/2], '\n')+1]
	for name, content := range map[string][]byte{
		"cut gzip stream": raw[:len(raw)/2],
		"cut line":        gz(t, cutLine),
		"missing lines":   gz(t, wholeLines),
	} {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, AIFBFolder), 0o755)
		for _, f := range []string{"trainingSet.tsv", "testSet.tsv"} {
			b, _ := os.ReadFile(filepath.Join(src, AIFBFolder, f))
			os.WriteFile(filepath.Join(dir, AIFBFolder, f), b, 0o644)
		}
		os.WriteFile(filepath.Join(dir, AIFBFolder, "aifb_stripped.nt.gz"), content, 0o644)
		_, err := LoadAIFB(dir)
		if err == nil || !strings.Contains(err.Error(), "aifb_stripped.nt.gz") {
			t.Errorf("%s: got %v, want an error naming the file", name, err)
		}
	}
}

func gz(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}
