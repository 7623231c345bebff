package datasets

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFacebookPagePage(t *testing.T) {
	dir := filepath.Join(sharedData(t), "facebook-page-page")
	raw, err := ReadFacebookPagePage(dir)
	if err != nil {
		t.Fatal(err)
	}
	loops := 0
	for i := range raw.Src {
		if raw.Src[i] == raw.Dst[i] {
			loops++
		}
	}
	if raw.NumNodes != 22470 || len(raw.Src) != 171002 || loops != 179 || raw.NumFeatures != 4714 || len(raw.FeatIndices) != 314583 {
		t.Errorf("raw: %d nodes, %d rows, %d loops, %d features, %d non-zeros", raw.NumNodes, len(raw.Src), loops, raw.NumFeatures, len(raw.FeatIndices))
	}
	if !slices.Equal(raw.ClassNames, []string{"company", "government", "politician", "tvshow"}) {
		t.Errorf("classes %v", raw.ClassNames)
	}
	counts := make([]int, 4)
	for _, y := range raw.Labels {
		counts[y]++
	}
	if !slices.Equal(counts, []int{6495, 6880, 5768, 3327}) {
		t.Errorf("class counts %v", counts)
	}
	if raw.PageNames[0] != "The Voice of China 中国好声音" || raw.FacebookIDs[0] != "145647315578475" {
		t.Errorf("row 0: %q %q", raw.PageNames[0], raw.FacebookIDs[0])
	}
	// Quoted names with commas and quotes survive (RFC 4180).
	quoted := 0
	for _, n := range raw.PageNames {
		if strings.ContainsAny(n, ",\"") {
			quoted++
		}
	}
	if quoted == 0 {
		t.Error("no page name with a comma or quote: quoting not exercised")
	}

	d, err := FacebookPagePage(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	if g.NumNodes() != 22470 || g.NumEdges() != 2*170823+179 || d.NumFeatures != 4714 || d.NumClasses != 4 {
		t.Errorf("dataset %v", d)
	}
	feat := g.NData("feat").Float32s()
	nnz := 0
	for _, v := range feat {
		if v == 1 {
			nnz++
		} else if v != 0 {
			t.Fatalf("feature value %g", v)
		}
	}
	if nnz != 314583 {
		t.Errorf("%d ones in feat", nnz)
	}
	if d.TrainIdx.Numel() != 80 || d.ValIdx.Numel() != 500 || d.TestIdx.Numel() != 1000 {
		t.Errorf("split %v", d)
	}
}

func facebookDir(t *testing.T, edges, feats, targets string) string {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, FacebookEdgesFile), edges, false)
	writeFile(t, filepath.Join(dir, FacebookFeaturesFile), feats, false)
	writeFile(t, filepath.Join(dir, FacebookTargetFile), targets, false)
	return dir
}

const (
	fbEdges   = "id_1,id_2\n0,1\n1,2\n2,2\n"
	fbFeats   = `{"2": [3], "0": [1, 0], "1": [2]}`
	fbTargets = "id,facebook_id,page_name,page_type\n0,11,\"Smith, \"\"Bob\"\"\",politician\n1,12,\"two\nlines\",company\n2,13,plain,company\n"
)

func TestFacebookSmallFiles(t *testing.T) {
	dir := facebookDir(t, fbEdges, fbFeats, fbTargets)
	raw, err := ReadFacebookPagePage(dir)
	if err != nil {
		t.Fatal(err)
	}
	if raw.PageNames[0] != `Smith, "Bob"` || raw.PageNames[1] != "two\nlines" || !slices.Equal(raw.Labels, []int64{1, 0, 0}) {
		t.Errorf("targets %q %v", raw.PageNames, raw.Labels)
	}
	if !slices.Equal(raw.FeatIndptr, []int64{0, 2, 3, 4}) || !slices.Equal(raw.FeatIndices, []int64{0, 1, 2, 3}) || raw.NumFeatures != 4 {
		t.Errorf("features %v %v", raw.FeatIndptr, raw.FeatIndices)
	}
	s, d := symmetrize(3, raw.Src, raw.Dst)
	if !slices.Equal(s, []int64{0, 1, 1, 2, 2}) || !slices.Equal(d, []int64{1, 0, 2, 1, 2}) {
		t.Errorf("symmetrised %v %v", s, d)
	}

	for _, c := range []struct {
		name                   string
		edges, feats, targets  string
		wantFile, wantLocation string
	}{
		{"edge field", "id_1,id_2\n0,1\n1,x\n", fbFeats, fbTargets, FacebookEdgesFile, ":3:"},
		{"edge range", "id_1,id_2\n0,5\n", fbFeats, fbTargets, FacebookEdgesFile, ":2: edge 0,5"},
		{"edge header", "a,b\n0,1\n", fbFeats, fbTargets, FacebookEdgesFile, ":1: header"},
		{"json syntax", fbEdges, "{\"0\": [1],\n \"1\": [2,,]}", fbTargets, FacebookFeaturesFile, ":2: column"},
		{"json node", fbEdges, `{"0": [1], "1": [2]}`, fbTargets, FacebookFeaturesFile, "node 2 has no entry"},
		{"json key", fbEdges, `{"0": [1], "1": [2], "x": [1]}`, fbTargets, FacebookFeaturesFile, `key "x"`},
		{"json dup", fbEdges, `{"0": [1, 1], "1": [2], "2": [0]}`, fbTargets, FacebookFeaturesFile, "twice"},
		{"csv quote", fbEdges, fbFeats, "id,facebook_id,page_name,page_type\n0,1,\"bad\"quote,x\n", FacebookTargetFile, ":2:"},
		{"csv fields", fbEdges, fbFeats, "id,facebook_id,page_name,page_type\n0,1,x\n", FacebookTargetFile, ":2:"},
		{"csv gap", fbEdges, fbFeats, "id,facebook_id,page_name,page_type\n0,1,a,x\n2,1,b,y\n", FacebookTargetFile, "1 is missing"},
		{"csv utf8", fbEdges, fbFeats, "id,facebook_id,page_name,page_type\n0,1,caf\xe9,x\n", FacebookTargetFile, ":2: column 3 is not valid UTF-8"},
		{"csv cut", fbEdges, fbFeats, "id,facebook_id,page_name,page_type\n0,11,a,x\n1,12,b,y\n2,13,c,y", FacebookTargetFile, ":4: the last line has no line ending"},
		{"csv dup", fbEdges, fbFeats, "id,facebook_id,page_name,page_type\n0,1,a,x\n0,1,b,y\n", FacebookTargetFile, ":3: id 0 appears twice"},
	} {
		dir := facebookDir(t, c.edges, c.feats, c.targets)
		d, err := FacebookPagePage(dir)
		if d != nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.wantFile+c.wantLocation) &&
			!(strings.Contains(err.Error(), c.wantFile) && strings.Contains(err.Error(), c.wantLocation)) {
			t.Errorf("%s: %v; want an ErrFormat naming %s and %q", c.name, err, c.wantFile, c.wantLocation)
		}
	}
	if _, err := ReadFacebookPagePage(t.TempDir()); !errors.Is(err, ErrMissing) {
		t.Errorf("empty folder: %v", err)
	}
}
