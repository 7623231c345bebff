package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// RDFDataset is an entity-classification dataset built from an RDF graph
// as DGL's dgl.data.rdf datasets (AIFBDataset, MUTAGDataset) build it:
// a heterograph whose node types are entity classes and whose canonical
// edge types are (subject class, relation, object class), with a reverse
// relation "rev-<relation>" for every relation, and labels on the nodes of
// one type, PredictCategory.
type RDFDataset struct {
	Name string
	// Graph is the heterograph. Node type PredictCategory has node data
	// "labels" (int64, -1 where unlabelled), "train_mask" and "test_mask"
	// (bool), as in DGL. Every other type is featureless.
	Graph *graph.Graph
	// PredictCategory is the node type with labels ("Personen" for AIFB,
	// "d" for MUTAG).
	PredictCategory string
	NumClasses      int
	// ClassNames are the label strings of the split files; class c is
	// ClassNames[c], numbered in order of first appearance in the training
	// file, then the test file (DGL's order).
	ClassNames []string
	// Labels is (N_category) int64: the class of every node of
	// PredictCategory, -1 for the unlabelled ones.
	Labels *tensor.Tensor
	// TrainIdx and TestIdx are node ids local to PredictCategory, int64,
	// in file order. The standard split has no validation set.
	TrainIdx, TestIdx *tensor.Tensor
	// NumTriples is the number of triples read from the file, and
	// NumUsed the number that became edges (each twice, with its reverse).
	NumTriples, NumUsed int
}

func (d *RDFDataset) String() string {
	nodes, edges := 0, 0
	for _, nt := range d.Graph.NTypes() {
		nodes += d.Graph.NumNodesOf(nt)
	}
	for _, ce := range d.Graph.CanonicalETypes() {
		edges += d.Graph.NumEdgesOf(ce.String())
	}
	return fmt.Sprintf("RDFDataset(%s: %d nodes of %d types, %d edges of %d relations, category %q, %d classes, train=%d, test=%d)",
		d.Name, nodes, len(d.Graph.NTypes()), edges, len(d.Graph.CanonicalETypes()),
		d.PredictCategory, d.NumClasses, d.TrainIdx.Size(0), d.TestIdx.Size(0))
}

// rdfEntity is an entity as DGL's Entity: a class and an id within it.
type rdfEntity struct{ cls, id string }

func (e rdfEntity) key() string { return e.cls + "/" + e.id }

// rdfRules are the dataset-specific parts of DGL's RDFGraphDataset
// (parse_entity, parse_relation, process_tuple, the split file's columns).
type rdfRules struct {
	name, folder, graphFile, category string
	// entity maps a term to its entity; ok false drops the triple. An
	// empty class is left for process to fill.
	entity func(t RDFTerm) (e rdfEntity, ok bool)
	// relation maps a predicate IRI to its relation name; ok false drops
	// the triple (the label relations).
	relation func(pred string) (string, bool)
	// process adjusts the classes of one triple (MUTAG's SCHEMA rule).
	process func(pred string, rel string, s, o *rdfEntity)
	// fallbackClass, when set, is the class process gives an entity
	// that no dataset relation points at (MUTAG's "SCHEMA"); an entity
	// whose class comes from its triples takes the first other class its
	// triples give it, else this one, so that it is one node (see loadRDF).
	fallbackClass string
	// counts published for the file (R-GCN paper, Table 1).
	triples, labelled int
}

// AIFBFolder and MUTAGFolder are the dataset folders under a data directory.
const (
	AIFBFolder  = "aifb"
	MUTAGFolder = "rgcn-mutag"
)

var aifbRules = rdfRules{
	name: "aifb", folder: AIFBFolder, graphFile: "aifb_stripped.nt.gz", category: "Personen",
	triples: 29043, labelled: 176,
	entity: func(t RDFTerm) (rdfEntity, bool) {
		switch t.Kind {
		case Literal:
			return rdfEntity{"_Literal", t.Value}, true
		case BlankNode:
			return rdfEntity{}, false
		}
		const prefix = "http://www.aifb.uni-karlsruhe.de/"
		if !strings.HasPrefix(t.Value, prefix) {
			return rdfEntity{}, false
		}
		// .../<section>/view<Type>OWL/id<N>instance: class <section>, id id<N>instance.
		sp := strings.Split(t.Value, "/")
		if len(sp) < 6 {
			return rdfEntity{}, false
		}
		return rdfEntity{sp[3], sp[5]}, true
	},
	relation: func(pred string) (string, bool) {
		if pred == "http://swrc.ontoware.org/ontology#employs" || pred == "http://swrc.ontoware.org/ontology#affiliation" {
			return "", false
		}
		if strings.HasPrefix(pred, "http://swrc.ontoware.org/") {
			return strings.Split(pred, "/")[3], true
		}
		return pred[strings.LastIndexByte(pred, '/')+1:], true
	},
}

var (
	mutagD    = regexp.MustCompile(`^d[0-9]`)
	mutagBond = regexp.MustCompile(`^bond[0-9]`)
)

const mutagPrefix = "http://dl-learner.org/carcinogenesis#"

var mutagRules = rdfRules{
	name: "mutag", folder: MUTAGFolder, graphFile: "mutag_stripped.nt.gz", category: "d",
	triples: 74227, labelled: 340, fallbackClass: "SCHEMA",
	entity: func(t RDFTerm) (rdfEntity, bool) {
		switch t.Kind {
		case Literal:
			return rdfEntity{"_Literal", t.Value}, true
		case BlankNode:
			return rdfEntity{}, false
		}
		if !strings.HasPrefix(t.Value, mutagPrefix) {
			// owl:Class, xsd:boolean, the ontology's own IRI, ...: nodes
			// of the paper's graph (DGL drops their 177 triples).
			return rdfEntity{"SCHEMA", t.Value}, true
		}
		inst := t.Value[len(mutagPrefix):]
		switch {
		case mutagD.MatchString(inst):
			return rdfEntity{"d", inst}, true
		case mutagBond.MatchString(inst):
			return rdfEntity{"bond", inst}, true
		}
		return rdfEntity{"", inst}, true
	},
	relation: func(pred string) (string, bool) {
		if pred == mutagPrefix+"isMutagenic" {
			return "", false
		}
		if strings.HasPrefix(pred, mutagPrefix) {
			return pred[len(mutagPrefix):], true
		}
		return pred[strings.LastIndexByte(pred, '/')+1:], true
	},
	process: func(pred, rel string, s, o *rdfEntity) {
		if !strings.HasPrefix(pred, mutagPrefix) {
			o.cls = "SCHEMA"
			if s.cls == "" {
				s.cls = "SCHEMA"
			}
		}
		if o.cls == "" {
			o.cls = rel
		}
		if s.cls == "" {
			// DGL asserts here; no triple of the published file reaches it.
			s.cls = rel
		}
	},
}

// LoadAIFB loads AIFB (Bloehdorn and Sure, ISWC 2007; the R-GCN benchmark
// version of Ristoski, de Vries and Paulheim, ISWC 2016) for R-GCN entity
// classification (Schlichtkrull, Kipf et al., "Modeling Relational Data
// with Graph Convolutional Networks", ESWC 2018) from
// <dir>/aifb/aifb_stripped.nt.gz, trainingSet.tsv and testSet.tsv (dir ""
// means DataDir("")), built as DGL's AIFBDataset: entities are the IRIs
// under http://www.aifb.uni-karlsruhe.de/ (class: the IRI's section, such
// as Personen or Publikationen) and the literals (class "_Literal", one
// node per distinct lexical form); triples with a blank node or another
// IRI are dropped, as are the label relations swrc:employs and
// swrc:affiliation. Triples are taken in sorted order and node ids given
// in order of first appearance. Every kept triple s -p-> o is an edge of
// (class(s), relation, class(o)) and its reverse one of (class(o),
// "rev-"+relation, class(s)). Labels: 4 research groups over 176 people
// (140 train, 36 test).
//
// Errors wrap ErrFormat and name the file and line: a malformed or cut
// N-Triples line (see LoadNTriples), a file with fewer or more triples
// than published (29,043), a split line without three TAB-separated
// columns or without its line ending (a cut file), a labelled entity that
// is not in the graph. In the dataset's folder of a data directory (aifb,
// rgcn-mutag) each file must then have the published size and sha256,
// else the error wraps ErrChecksum and names the file. A missing
// file wraps ErrMissing. Nothing is downloaded.
func LoadAIFB(dir string) (*RDFDataset, error) { return loadRDF(dir, aifbRules) }

// LoadMUTAG loads MUTAG (the DL-Learner carcinogenesis data, R-GCN
// version) from <dir>/rgcn-mutag/ as the graph of the R-GCN paper
// (Schlichtkrull, Kipf et al., ESWC 2018, Table 1: 23,644 entities, 74,227
// triples, 23 relations; built as its reference code tkipf/relational-gcn
// does, one node per RDF term and every triple an edge), with node types
// as DGL's MUTAGDataset gives them: entities under
// http://dl-learner.org/carcinogenesis# are of class "d" (compounds and
// their atoms: names starting d<digit>), "bond" (bond<digit>...),
// otherwise the class of the dataset relation pointing at them (the
// 3,526 "hasStructure" instances), or "SCHEMA" (the classes and
// properties of the ontology, and the 7 IRIs outside the namespace such
// as owl:Class and xsd:boolean); literals are class "_Literal", one node
// per lexical form. Every triple s -p-> o is an edge of (class(s), p's
// local name, class(o)) and its reverse of "rev-"+name: 148,454 edges of
// 52 canonical edge types. The label relation isMutagenic is not in the
// file (and would be dropped). Labels: 2 classes over 340 compounds (272
// train, 68 test). Errors as LoadAIFB (74,227 triples published).
//
// Two departures from DGL's MUTAGDataset (27,163 nodes, 148,100 edges),
// both made to have the paper's graph: DGL keys an entity by (class, IRI)
// with the class taken from each triple, so every structure instance is
// two nodes, "hasStructure/x" (the object of d -hasStructure-> x) and
// "SCHEMA/x" (the subject of x rdf:type Nitro, ...), which cuts every
// compound off from the types of its structures; here it is one node, of
// the first class other than "SCHEMA" its triples give it. DGL also drops
// the 177 triples whose object is outside the namespace; here they are
// kept.
func LoadMUTAG(dir string) (*RDFDataset, error) { return loadRDF(dir, mutagRules) }

func loadRDF(dir string, r rdfRules) (*RDFDataset, error) {
	if dir == "" {
		dir = DataDir("")
	}
	base := filepath.Join(dir, r.folder)
	if _, err := os.Stat(filepath.Join(dir, r.graphFile)); err == nil {
		base = dir
	}
	// Check the split files' structure and checksums before the (slower)
	// graph, so that a cut split file is reported at once.
	for _, file := range []string{"trainingSet.tsv", "testSet.tsv"} {
		p := filepath.Join(base, file)
		if _, err := readSplit(p, nil); err != nil {
			return nil, err
		}
		if err := checkRelease(p); err != nil {
			return nil, err
		}
	}
	path := filepath.Join(base, r.graphFile)
	triples, err := LoadNTriples(path)
	if err != nil {
		return nil, err
	}
	if len(triples) != r.triples {
		return nil, lineError(path, 0, "%d triples, the published file has %d: the file is truncated or not the published one", len(triples), r.triples)
	}
	if err := checkRelease(path); err != nil {
		return nil, err
	}
	keys := make([]string, len(triples))
	for i, t := range triples {
		keys[i] = t.Subject.String() + " " + t.Predicate.String() + " " + t.Object.String()
	}
	order := make([]int, len(triples))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })

	type node struct {
		cls string
		id  int64
	}
	entities := map[string]node{} // entity key -> class and local id
	numNodes := map[string]int{}
	edges := map[graph.CanonicalEType]graph.EdgeList{}
	add := func(e rdfEntity) int64 {
		if n, ok := entities[e.key()]; ok {
			return n.id
		}
		id := int64(numNodes[e.cls])
		numNodes[e.cls]++
		entities[e.key()] = node{e.cls, id}
		return id
	}
	// parse maps triple i to its entities and relation (ok false: the
	// triple is dropped), the classes as process gives them.
	parse := func(i int) (s, o rdfEntity, rel string, sFree, oFree, ok bool) {
		t := triples[i]
		s, ok1 := r.entity(t.Subject)
		rel, ok2 := r.relation(t.Predicate.Value)
		o, ok3 := r.entity(t.Object)
		if !ok1 || !ok2 || !ok3 {
			return s, o, rel, false, false, false
		}
		sFree, oFree = s.cls == "", o.cls == ""
		if r.process != nil {
			r.process(t.Predicate.Value, rel, &s, &o)
		}
		return s, o, rel, sFree, oFree, s.cls != "" && o.cls != ""
	}
	// An entity whose class comes from its triples (MUTAG's structure
	// instances: "hasStructure" as the object of hasStructure, "SCHEMA" as
	// the subject of rdf:type) is one node of one class, as in the R-GCN
	// paper's graph (one node per RDF term), not one node per class as
	// DGL's RDFGraphDataset makes it (which cuts the compound-structure-
	// type paths): its class is the first non-fallback class its triples
	// give it, in sorted triple order, else the fallback.
	fixed := map[string]string{} // entity id -> class
	if r.fallbackClass != "" {
		note := func(e rdfEntity) {
			if c, ok := fixed[e.id]; !ok || (c == r.fallbackClass && e.cls != r.fallbackClass) {
				fixed[e.id] = e.cls
			}
		}
		for _, i := range order {
			s, o, _, sFree, oFree, ok := parse(i)
			if !ok {
				continue
			}
			if sFree {
				note(s)
			}
			if oFree {
				note(o)
			}
		}
	}
	used := 0
	for _, i := range order {
		s, o, rel, sFree, oFree, ok := parse(i)
		if !ok {
			continue
		}
		if c, ok := fixed[s.id]; ok && sFree {
			s.cls = c
		}
		if c, ok := fixed[o.id]; ok && oFree {
			o.cls = c
		}
		si, oi := add(s), add(o)
		fw := graph.CanonicalEType{Src: s.cls, EType: rel, Dst: o.cls}
		bw := graph.CanonicalEType{Src: o.cls, EType: "rev-" + rel, Dst: s.cls}
		el := edges[fw]
		edges[fw] = graph.EdgeList{Src: append(el.Src, si), Dst: append(el.Dst, oi)}
		el = edges[bw]
		edges[bw] = graph.EdgeList{Src: append(el.Src, oi), Dst: append(el.Dst, si)}
		used++
	}
	g, err := graph.NewHetero(numNodes, edges)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", r.name, err)
	}
	n := numNodes[r.category]
	labels := make([]int64, n)
	for i := range labels {
		labels[i] = -1
	}
	classes := map[string]int64{}
	var names []string
	var idx [2][]int64
	for k, file := range []string{"trainingSet.tsv", "testSet.tsv"} {
		p := filepath.Join(base, file)
		rows, err := readSplit(p, func(iri string) (int64, bool) {
			e, ok := r.entity(RDFTerm{Kind: IRI, Value: iri})
			if !ok {
				return 0, false
			}
			nd, ok := entities[e.key()]
			return nd.id, ok && nd.cls == r.category
		})
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			c, ok := classes[row.label]
			if !ok {
				c = int64(len(names))
				classes[row.label] = c
				names = append(names, row.label)
			}
			labels[row.id] = c
			idx[k] = append(idx[k], row.id)
		}
	}
	if got := len(idx[0]) + len(idx[1]); got != r.labelled {
		return nil, fmt.Errorf("%w: %s: %d labelled entities in the split files, the dataset has %d", ErrFormat, base, got, r.labelled)
	}
	train, test := make([]bool, n), make([]bool, n)
	for _, i := range idx[0] {
		train[i] = true
	}
	for _, i := range idx[1] {
		test[i] = true
	}
	d := &RDFDataset{Name: r.name, Graph: g, PredictCategory: r.category, NumClasses: len(names), ClassNames: names,
		Labels: tensor.FromInt64(labels), TrainIdx: tensor.FromInt64(idx[0]), TestIdx: tensor.FromInt64(idx[1]),
		NumTriples: len(triples), NumUsed: used}
	for name, t := range map[string]*tensor.Tensor{"labels": d.Labels, "train_mask": tensor.FromBool(train), "test_mask": tensor.FromBool(test)} {
		if err := g.SetNDataOf(r.category, name, t); err != nil {
			return nil, fmt.Errorf("datasets: %s: %w", r.name, err)
		}
	}
	return d, nil
}

type splitRow struct {
	id    int64
	label string
}

// readSplit reads an R-GCN split file: a header, then "<entity IRI> TAB
// <id> TAB <label>" lines (CRLF or LF). lookup maps the IRI to its node;
// nil checks the structure only and returns no rows.
func readSplit(path string, lookup func(iri string) (int64, bool)) ([]splitRow, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []splitRow
	for first := true; ; first = false {
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
		if first {
			continue // header
		}
		t := strings.TrimSpace(string(line))
		if t == "" {
			continue
		}
		cols := strings.Split(t, "\t")
		if len(cols) != 3 || cols[0] == "" || cols[2] == "" {
			return nil, f.errorf("want three TAB-separated columns (entity, id, label), got %q", clip(line))
		}
		if lookup == nil {
			continue
		}
		id, ok := lookup(cols[0])
		if !ok {
			return nil, f.errorf("entity %s is not a node of the graph's labelled type", cols[0])
		}
		rows = append(rows, splitRow{id, cols[2]})
	}
	if len(rows) == 0 && lookup != nil {
		return nil, lineError(path, f.line, "no labelled rows")
	}
	return rows, nil
}
