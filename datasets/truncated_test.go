package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// truncCase is one loader: the files it reads (relative to the shared data
// folder, copied to a temporary data directory under the same relative
// path) and how to load them from that directory.
type truncCase struct {
	name  string
	files []string
	load  func(dir string) error
	// text lists the files that are line-oriented text (not gzipped),
	// which are also cut mid-line and at line boundaries and whose errors
	// must name the line (unless checksumFirst).
	text map[string]bool
	// checksumFirst: the loader checks every file's pinned checksum before
	// parsing (Planetoid), so its errors name the file but no line.
	checksumFirst bool
}

func truncCases() []truncCase {
	rdf := func(folder, gz string, load func(string) (*RDFDataset, error)) truncCase {
		return truncCase{
			name:  folder,
			files: []string{folder + "/" + gz, folder + "/trainingSet.tsv", folder + "/testSet.tsv"},
			load:  func(dir string) error { _, err := load(dir); return err },
			text:  map[string]bool{folder + "/trainingSet.tsv": true, folder + "/testSet.tsv": true},
		}
	}
	var cora []string
	for _, s := range []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"} {
		cora = append(cora, "cora/ind.cora."+s)
	}
	return []truncCase{
		{name: "planetoid", files: cora, load: func(dir string) error { _, err := LoadPlanetoidRaw(dir, "cora"); return err },
			text: map[string]bool{"cora/ind.cora.test.index": true}, checksumFirst: true},
		{name: "facebook", files: []string{"facebook-page-page/facebook_edges.csv", "facebook-page-page/facebook.json", "facebook-page-page/facebook_target.csv"},
			load: func(dir string) error {
				_, err := ReadFacebookPagePage(filepath.Join(dir, "facebook-page-page"))
				return err
			},
			text: map[string]bool{"facebook-page-page/facebook_edges.csv": true, "facebook-page-page/facebook_target.csv": true}},
		{name: "snap-enron", files: []string{"snap-email-enron/email-Enron.txt.gz"},
			load: func(dir string) error {
				_, err := ReadSNAP(filepath.Join(dir, "snap-email-enron/email-Enron.txt.gz"))
				return err
			}},
		{name: "snap-grqc", files: []string{"snap-ca-grqc/ca-GrQc.txt"},
			load: func(dir string) error { _, err := ReadSNAP(filepath.Join(dir, "snap-ca-grqc/ca-GrQc.txt")); return err },
			text: map[string]bool{"snap-ca-grqc/ca-GrQc.txt": true}},
		{name: "grqc-split", files: []string{"snap-ca-grqc/CA-GrQc_train.txt", "snap-ca-grqc/CA-GrQc_test.txt", "snap-ca-grqc/CA-GrQc_test_neg.txt"},
			load: func(dir string) error { _, err := LoadCaGrQc(dir); return err },
			text: map[string]bool{"snap-ca-grqc/CA-GrQc_train.txt": true, "snap-ca-grqc/CA-GrQc_test.txt": true, "snap-ca-grqc/CA-GrQc_test_neg.txt": true}},
		{name: "gnnbench-npz", files: []string{"gnnbench-npz/cora.npz"},
			load: func(dir string) error {
				_, err := GNNBenchmarkNPZ(filepath.Join(dir, "gnnbench-npz/cora.npz"))
				return err
			}},
		{name: "npz", files: []string{"heco-acm/p_feat.npz"},
			load: func(dir string) error { _, err := ReadNPZ(filepath.Join(dir, "heco-acm/p_feat.npz")); return err }},
		{name: "npy", files: []string{"heco-acm/labels.npy"},
			load: func(dir string) error { _, err := ReadNPY(filepath.Join(dir, "heco-acm/labels.npy")); return err }},
		rdf("aifb", "aifb_stripped.nt.gz", LoadAIFB),
		rdf("rgcn-mutag", "mutag_stripped.nt.gz", LoadMUTAG),
	}
}

// cutPoints returns the lengths to cut a file of content b to: half, one
// byte short, and for line-oriented text also mid-line (the middle of the
// line around two thirds in), at a line boundary (after the newline nearest
// the middle) and without its last line.
func cutPoints(b []byte, text bool) map[string]int {
	n := len(b)
	cuts := map[string]int{"half": n / 2, "last byte": n - 1}
	if !text {
		cuts["third"] = n / 3
		return cuts
	}
	at := 2 * n / 3
	s := bytes.LastIndexByte(b[:at], '\n') + 1
	e := s + bytes.IndexByte(b[s:], '\n')
	if e > s+1 {
		cuts["mid-line"] = s + (e-s)/2
	}
	if i := bytes.LastIndexByte(b[:n/2], '\n'); i > 0 {
		cuts["line boundary"] = i + 1
	}
	if i := bytes.LastIndexByte(b[:n-1], '\n'); i > 0 {
		cuts["last line dropped"] = i + 1
	}
	return cuts
}

// TestTruncatedInputIsAnError cuts every file of every loader at several
// points and requires an error naming the file (and the line, for a text
// file cut mid-line), never a silently smaller dataset.
func TestTruncatedInputIsAnError(t *testing.T) {
	noNetwork(t)
	shared := sharedData(t)
	for _, c := range truncCases() {
		t.Run(c.name, func(t *testing.T) {
			contents := map[string][]byte{}
			for _, f := range c.files {
				b, err := os.ReadFile(filepath.Join(shared, filepath.FromSlash(f)))
				if err != nil {
					t.Skipf("shared data: %v", err)
				}
				contents[f] = b
			}
			dir := t.TempDir()
			write := func(f string, b []byte) {
				p := filepath.Join(dir, filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for f, b := range contents {
				write(f, b)
			}
			if err := c.load(dir); err != nil {
				t.Fatalf("intact files: %v", err)
			}
			for _, f := range c.files {
				full := contents[f]
				for how, at := range cutPoints(full, c.text[f]) {
					write(f, full[:at])
					err := c.load(dir)
					p := filepath.Join(dir, filepath.FromSlash(f))
					switch {
					case err == nil:
						t.Errorf("%s cut %s (%d of %d bytes): no error", f, how, at, len(full))
					case !strings.Contains(err.Error(), p):
						t.Errorf("%s cut %s: error does not name %s: %v", f, how, p, err)
					case how == "mid-line" && !c.checksumFirst && !regexp.MustCompile(regexp.QuoteMeta(p)+`:\d+`).MatchString(err.Error()):
						t.Errorf("%s cut %s: error does not name the line: %v", f, how, err)
					}
				}
				write(f, full)
			}
		})
	}
}

// TestCorruptByteIsAnError changes one byte in the middle of every pinned
// file (a digit to another digit where there is one, so the file still
// parses): the checksum names the file.
func TestCorruptByteIsAnError(t *testing.T) {
	noNetwork(t)
	shared := sharedData(t)
	for _, c := range truncCases() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			contents := map[string][]byte{}
			for _, f := range c.files {
				b, err := os.ReadFile(filepath.Join(shared, filepath.FromSlash(f)))
				if err != nil {
					t.Skipf("shared data: %v", err)
				}
				contents[f] = b
				p := filepath.Join(dir, filepath.FromSlash(f))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range c.files {
				full := contents[f]
				bad := bytes.Clone(full)
				i := len(bad) / 2
				for j := i; j < len(bad); j++ {
					if bad[j] >= '1' && bad[j] <= '8' {
						i = j
						break
					}
				}
				bad[i] ^= 1
				p := filepath.Join(dir, filepath.FromSlash(f))
				os.WriteFile(p, bad, 0o644)
				if err := c.load(dir); err == nil || !strings.Contains(err.Error(), p) {
					t.Errorf("%s with byte %d changed: want an error naming it, got %v", f, i, err)
				}
				os.WriteFile(p, full, 0o644)
			}
		})
	}
}

// TestOGBTruncated cuts the files of an OGB-layout fixture. Gzipped files
// (OGB's own layout) are cut anywhere: the gzip CRC and length catch it.
// Plain files are cut mid-line (the last line then has no line ending)
// and, for files whose row count is declared (edge, node-feat,
// node-label: num-edge-list and num-node-list), at a line boundary. A
// plain split file cut at a line boundary cannot be told from a shorter
// split: OGB publishes no per-file checksum (its zip's own CRC covers it).
func TestOGBTruncated(t *testing.T) {
	files := map[string]string{
		"raw/num-node-list.csv": "5\n",
		"raw/num-edge-list.csv": "4\n",
		"raw/edge.csv":          "0,1\n1,2\n2,3\n3,0\n",
		"raw/node-feat.csv":     "0.5,1,-2\n0,0,0\n1e-3,2.5,3\n-1,-1,-1\n7,8,9\n",
		"raw/node-label.csv":    "2\n0\n1\n0\n2\n",
		"split/time/train.csv":  "0\n1\n",
		"split/time/valid.csv":  "2\n",
		"split/time/test.csv":   "4\n3\n",
	}
	declared := map[string]bool{"raw/edge.csv": true, "raw/node-feat.csv": true, "raw/node-label.csv": true}
	for _, gz := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "ogbn-arxiv")
		name := func(k string) string {
			if gz {
				return k + ".gz"
			}
			return k
		}
		for k, v := range files {
			writeFile(t, filepath.Join(dir, name(k)), v, gz)
		}
		if _, err := OGBNodeProp(dir); err != nil {
			t.Fatalf("gz=%v intact: %v", gz, err)
		}
		for k, v := range files {
			p := filepath.Join(dir, name(k))
			full, _ := os.ReadFile(p)
			cuts := map[string]int{}
			if gz {
				cuts = map[string]int{"half": len(full) / 2, "last byte": len(full) - 1}
			} else {
				cuts["mid-line"] = len(v) - 1 // the last line without its newline
				if i := strings.LastIndexByte(v[:len(v)-1], '\n'); declared[k] && i > 0 {
					cuts["line boundary"] = i + 1
				}
			}
			for how, at := range cuts {
				os.WriteFile(p, full[:at], 0o644)
				_, err := OGBNodeProp(dir)
				if err == nil || !strings.Contains(err.Error(), p) {
					t.Errorf("gz=%v %s cut %s: want an error naming it, got %v", gz, k, how, err)
				} else if how == "mid-line" && !strings.Contains(err.Error(), p+":") {
					t.Errorf("gz=%v %s cut %s: error does not name the line: %v", gz, k, how, err)
				}
			}
			os.WriteFile(p, full, 0o644)
		}
	}
}

// BenchmarkCheckRelease is the cost of the sha256 check of the published
// files, per load of Facebook Page-Page (5.1 MB in three files).
func BenchmarkCheckRelease(b *testing.B) {
	dir := filepath.Join(sharedData(b), "facebook-page-page")
	files := []string{FacebookEdgesFile, FacebookFeaturesFile, FacebookTargetFile}
	b.SetBytes(1882610 + 2088766 + 1177912)
	for i := 0; i < b.N; i++ {
		for _, f := range files {
			if err := checkRelease(filepath.Join(dir, f)); err != nil {
				b.Fatal(err)
			}
		}
	}
}
