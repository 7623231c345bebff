package datasets

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Facebook Large Page-Page file names inside its folder (MUSAE release),
// and the folder's name in a data directory.
const (
	FacebookFolder       = "facebook-page-page"
	FacebookEdgesFile    = "facebook_edges.csv"
	FacebookFeaturesFile = "facebook.json"
	FacebookTargetFile   = "facebook_target.csv"
)

// FacebookRaw is the Facebook Large Page-Page network (Rozemberczki, Allen
// and Sarkar, "Multi-scale Attributed Node Embedding", Journal of Complex
// Networks 2021) as stored in its three files, for callers that build their
// own features.
type FacebookRaw struct {
	NumNodes int
	// Src, Dst are the undirected edges as stored, one row each (171,002
	// rows, 179 of them self loops).
	Src, Dst []int64
	// FeatIndptr and FeatIndices are the binary features in CSR form: node
	// i has feature ids FeatIndices[FeatIndptr[i]:FeatIndptr[i+1]], sorted.
	FeatIndptr, FeatIndices []int64
	NumFeatures             int // largest feature id plus one (4,714)
	// Labels are class ids into ClassNames (sorted: company, government,
	// politician, tvshow).
	Labels     []int64
	ClassNames []string
	// PageNames and FacebookIDs are the target file's page_name and
	// facebook_id columns, by node id.
	PageNames   []string
	FacebookIDs []string
}

// ReadFacebookPagePage reads the three MUSAE files from dir:
// facebook_edges.csv (header id_1,id_2; one row per undirected edge),
// facebook.json ({"<node id>": [feature ids, ...], ...} for every node) and
// facebook_target.csv (RFC 4180 CSV in UTF-8, header id,facebook_id,
// page_name,page_type; bytes that are not UTF-8 are an error). Node ids must run over 0..N-1 with every node in the features
// and target files exactly once. Errors wrap ErrMissing or ErrFormat and
// name the file and line (the byte offset for JSON syntax); a CSV whose
// last line has no line ending is cut, an error. When dir is the dataset's
// folder in a data directory (named facebook-page-page), each file must
// then have the published size and sha256 (this catches a cut at a line
// boundary), else the error wraps ErrChecksum and names the file.
func ReadFacebookPagePage(dir string) (*FacebookRaw, error) {
	raw := &FacebookRaw{}
	if err := readFacebookTargets(filepath.Join(dir, FacebookTargetFile), raw); err != nil {
		return nil, err
	}
	if err := readFacebookFeatures(filepath.Join(dir, FacebookFeaturesFile), raw); err != nil {
		return nil, err
	}
	if err := readFacebookEdges(filepath.Join(dir, FacebookEdgesFile), raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// FacebookPagePage loads Facebook Large Page-Page from dir (see
// ReadFacebookPagePage) as a Dataset: the graph is symmetrised (both
// directions of every stored edge, the 179 self loops once, no duplicates,
// sorted by (src, dst): 22,470 nodes and 341,825 edges), node data "feat"
// (N, 4714) float32 holds the binary features densely (424 MB; use
// ReadFacebookPagePage for the sparse ids), "label" (N) int64 the page type
// (4 classes, see FacebookRaw.ClassNames), and the masks a random split of
// DefaultTrainPerClass per class, DefaultNumVal and DefaultNumTest nodes with
// seed 0 (there is no standard split; see Dataset.RandomSplit).
func FacebookPagePage(dir string) (*Dataset, error) {
	raw, err := ReadFacebookPagePage(dir)
	if err != nil {
		return nil, err
	}
	n, f := raw.NumNodes, raw.NumFeatures
	src, dst := symmetrize(n, raw.Src, raw.Dst)
	feat := make([]float32, n*f)
	for i := 0; i < n; i++ {
		for _, j := range raw.FeatIndices[raw.FeatIndptr[i]:raw.FeatIndptr[i+1]] {
			feat[i*f+int(j)] = 1
		}
	}
	tr, va, te, err := RandomSplitIdx(raw.Labels, DefaultTrainPerClass, DefaultNumVal, DefaultNumTest, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return fromRaw("facebook-page-page", n, f, len(raw.ClassNames), src, dst, feat, raw.Labels, tr, va, te)
}

// symmetrize returns both directions of every edge, self loops once,
// without duplicates, sorted by (src, dst).
func symmetrize(n int, src, dst []int64) ([]int64, []int64) {
	keys := make([]int64, 0, 2*len(src))
	for i := range src {
		keys = append(keys, src[i]*int64(n)+dst[i])
		if src[i] != dst[i] {
			keys = append(keys, dst[i]*int64(n)+src[i])
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	s, d := make([]int64, len(keys)), make([]int64, len(keys))
	for k, key := range keys {
		s[k], d[k] = key/int64(n), key%int64(n)
	}
	return s, d
}

func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s: %w", ErrMissing, path, err)
		}
		return nil, fmt.Errorf("datasets: opening %s: %w", path, err)
	}
	return f, nil
}

func readFacebookTargets(path string, raw *FacebookRaw) error {
	f, err := openFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = 4
	r.ReuseRecord = true
	type row struct {
		fbID, name, typ string
	}
	var rows []row
	seen := map[int64]bool{}
	header := true
	lastLine := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return lineError(path, pe.StartLine, "%v", pe.Err)
			}
			return fmt.Errorf("datasets: reading %s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		lastLine = line
		if header {
			if rec[0] != "id" || rec[1] != "facebook_id" || rec[2] != "page_name" || rec[3] != "page_type" {
				return lineError(path, line, "header %q, want id,facebook_id,page_name,page_type", rec)
			}
			header = false
			continue
		}
		id, ok := parseID([]byte(rec[0]))
		if !ok {
			return lineError(path, line, "id %q is not a non-negative integer", rec[0])
		}
		if seen[id] {
			return lineError(path, line, "id %d appears twice", id)
		}
		seen[id] = true
		if rec[3] == "" {
			return lineError(path, line, "empty page_type for id %d", id)
		}
		for k, v := range rec {
			if !utf8.ValidString(v) {
				return lineError(path, line, "column %d is not valid UTF-8 (the release is UTF-8): %q", k+1, clip([]byte(v)))
			}
		}
		for int64(len(rows)) <= id {
			rows = append(rows, row{})
		}
		rows[id] = row{rec[1], rec[2], rec[3]}
	}
	if header {
		return lineError(path, 0, "empty file")
	}
	if err := finalNewline(f, path, lastLine); err != nil {
		return err
	}
	if err := checkRelease(path); err != nil {
		return err
	}
	if len(seen) != len(rows) {
		for i := range rows {
			if !seen[int64(i)] {
				return lineError(path, 0, "node ids must be 0..%d, but %d is missing", len(rows)-1, i)
			}
		}
	}
	raw.NumNodes = len(rows)
	classes := map[string]bool{}
	for _, r := range rows {
		classes[r.typ] = true
	}
	for c := range classes {
		raw.ClassNames = append(raw.ClassNames, c)
	}
	slices.Sort(raw.ClassNames)
	raw.Labels = make([]int64, len(rows))
	raw.PageNames = make([]string, len(rows))
	raw.FacebookIDs = make([]string, len(rows))
	for i, r := range rows {
		c, _ := slices.BinarySearch(raw.ClassNames, r.typ)
		raw.Labels[i], raw.PageNames[i], raw.FacebookIDs[i] = int64(c), r.name, r.fbID
	}
	return nil
}

func readFacebookFeatures(path string, raw *FacebookRaw) error {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s: %w", ErrMissing, path, err)
		}
		return fmt.Errorf("datasets: reading %s: %w", path, err)
	}
	var m map[string][]int64
	if err := json.Unmarshal(data, &m); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return jsonError(path, data, se.Offset, se.Error())
		case errors.As(err, &te):
			return jsonError(path, data, te.Offset, te.Error())
		}
		return lineError(path, 0, "%v", err)
	}
	n := raw.NumNodes
	lists := make([][]int64, n)
	for k, ids := range m {
		id, ok := parseID([]byte(k))
		if !ok || strconv.FormatInt(id, 10) != k {
			return lineError(path, 0, "key %q is not a node id", k)
		}
		if id >= int64(n) {
			return lineError(path, 0, "node %d has features but %s lists only %d nodes", id, FacebookTargetFile, n)
		}
		lists[id] = ids
	}
	if len(m) != n {
		for i, l := range lists {
			if l == nil {
				return lineError(path, 0, "node %d has no entry (want one per node 0..%d)", i, n-1)
			}
		}
	}
	raw.FeatIndptr = make([]int64, n+1)
	maxF := int64(-1)
	for i, l := range lists {
		s := slices.Clone(l)
		slices.Sort(s)
		for k, j := range s {
			if j < 0 {
				return lineError(path, 0, "node %d has negative feature id %d", i, j)
			}
			if k > 0 && s[k-1] == j {
				return lineError(path, 0, "node %d lists feature %d twice", i, j)
			}
			maxF = max(maxF, j)
		}
		raw.FeatIndices = append(raw.FeatIndices, s...)
		raw.FeatIndptr[i+1] = int64(len(raw.FeatIndices))
	}
	raw.NumFeatures = int(maxF + 1)
	return checkRelease(path)
}

// jsonError reports a JSON error at byte offset off as a line and column.
func jsonError(path string, data []byte, off int64, msg string) error {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return lineError(path, line, "column %d (byte %d): %s", col, off, msg)
}

func readFacebookEdges(path string, raw *FacebookRaw) error {
	f, err := openData(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var fields [][]byte
	header := true
	for {
		line, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if f.atEOFWithoutNewline() {
			return f.errorf("the last line %q has no line ending: the file is truncated", clip(line))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		fields = splitComma(fields, line)
		if header {
			if len(fields) != 2 || string(fields[0]) != "id_1" || string(fields[1]) != "id_2" {
				return f.errorf("header %q, want id_1,id_2", clip(line))
			}
			header = false
			continue
		}
		if len(fields) != 2 {
			return f.errorf("want two comma-separated node ids, got %q", clip(line))
		}
		u, ok1 := parseID(fields[0])
		v, ok2 := parseID(fields[1])
		if !ok1 || !ok2 {
			return f.errorf("node ids must be non-negative integers, got %q", clip(line))
		}
		if u >= int64(raw.NumNodes) || v >= int64(raw.NumNodes) {
			return f.errorf("edge %d,%d names a node outside 0..%d", u, v, raw.NumNodes-1)
		}
		raw.Src, raw.Dst = append(raw.Src, u), append(raw.Dst, v)
	}
	if header {
		return lineError(path, 0, "empty file")
	}
	return checkRelease(path)
}

// finalNewline returns an error naming path and line when the file f
// does not end with a line ending (it was cut mid-line).
func finalNewline(f *os.File, path string, line int) error {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return err
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], st.Size()-1); err != nil {
		return fmt.Errorf("datasets: reading %s: %w", path, err)
	}
	if b[0] != '\n' {
		return lineError(path, line, "the last line has no line ending: the file is truncated")
	}
	return nil
}
