package datasets

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"
)

// planetoidGolden holds sha256 digests of the reference load_data and
// preprocess_features outputs (tkipf/gcn gcn/utils.py, numpy 1.24, scipy
// 1.10, networkx 2.8), printed by testdata/planetoid_reference.py.
var planetoidGolden = map[string]struct {
	src, dst, feat, labels, test, norm string
}{
	"cora": {
		src:    "5c569c4be8bf83dfa5923b9ce96ac33174538a3b4a563063be1293c1c7365883",
		dst:    "136816d5119e4d08b36222adb1d36ac1c3e21fdf1f5ec40cdee39bf1bd894404",
		feat:   "f0faab5177bcc12f5688f042c8e0ed24ffb9baa8efc3ae7cde440d42524c9075",
		labels: "d0018d7ffd314eb25a4904973f2c7eb1b7be135d668de42d453714724f8e9d03",
		test:   "16680ae981534bf8b04697b2c29ae6aa105d20fb580182d87346c5a44cd58634",
		norm:   "1a213087243ca1ee26967d0809d04997d276f0911fe5f8d994f49b3aa873b675",
	},
	"citeseer": {
		src:    "9474da0a5e35e2b5173921b54e99bb23206c115c814102fcd5296f523f2cf947",
		dst:    "cd3763f579c749f96f9ed7c8f62e7968a82a98160826472e618cb7ab098c453f",
		feat:   "cb9a425333dd8d1ae650e0eb4f3d65b14920aa6d5f0d4efa56d60f18f8d8c600",
		labels: "448f8c04e02516b2784cfd3c5d82049f84ea77d6ef94c65ee19f8ea8b792b0fa",
		test:   "e85e8126e95f8d182d9e4a776c58434e549da8714291fd046a87b4583d842fe1",
		norm:   "d00c6fd7410af29646fb4678926e72ece1ef8a9a910b09d100ca0db4abfcb849",
	},
	"pubmed": {
		src:    "cd08cab8f3784d1bcc43265454d7289fd8d4d33a4afa3b23cff9e54b628e7bd5",
		dst:    "bf79e4271d54756a8cf4120c86e65f006a95f9710209277176dac63140b26b7c",
		feat:   "4f1804517a3fab22c6ae1df7674c6a194acefcd242dc843930da79ce9ea6f681",
		labels: "973a30d7c0567fe67fb9026058f1105859f87d44981b7b88992d648877d174c7",
		test:   "b96a6358bdf42f9d4eef91f76a29d8fa89b7fefbeec978ddbf9f5a906f89da15",
		// No norm digest: the reference's np.power(rowsum, -1) is not
		// correctly rounded on 7 PubMed rows (see RowNormalize); the row
		// sums are checked instead.
	},
}

func digest(t *testing.T, v any) string {
	t.Helper()
	h := sha256.New()
	if err := binary.Write(h, binary.LittleEndian, v); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestPlanetoidMatchesReference checks that edges, features, labels, the
// test ids and the row-normalised features are bit-identical to the
// reference implementation's.
func TestPlanetoidMatchesReference(t *testing.T) {
	dir := sharedData(t)
	noNetwork(t)
	for _, name := range PlanetoidNames {
		t.Run(name, func(t *testing.T) {
			w := planetoidGolden[name]
			d, err := LoadPlanetoidRaw(dir, name)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				what string
				v    any
				want string
			}{
				{"Src", d.Src, w.src}, {"Dst", d.Dst, w.dst}, {"Features", d.Features, w.feat},
				{"Labels", d.Labels, w.labels}, {"TestIdx", d.TestIdx, w.test},
			} {
				if got := digest(t, c.v); got != c.want {
					t.Errorf("%s digest %s, reference %s", c.what, got, c.want)
				}
			}
			RowNormalize(d.Features, d.NumNodes, d.NumFeatures)
			if w.norm != "" {
				if got := digest(t, d.Features); got != w.norm {
					t.Errorf("normalised features digest %s, reference %s", got, w.norm)
				}
			}
			for i := 0; i < d.NumNodes; i++ {
				var s float64
				for _, v := range d.Features[i*d.NumFeatures : (i+1)*d.NumFeatures] {
					s += float64(v)
				}
				if s != 0 && math.Abs(s-1) > 1e-5 {
					t.Fatalf("row %d sums to %v after RowNormalize", i, s)
				}
			}
		})
	}
}
