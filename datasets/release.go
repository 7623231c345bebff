package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// releasePin is the size and sha256 of one published data file.
type releasePin struct {
	size   int64
	sha256 string
}

// releaseFiles pins the published files that the loaders read, keyed by
// "<folder>/<file>" as they lie in a data directory (see DataDir). The
// values were checked against the public releases listed in the shared
// data README (git blob ids of the source repositories, and the published
// checksums where one exists). Planetoid's files are pinned separately
// (PlanetoidFiles), with download URLs.
var releaseFiles = map[string]releasePin{
	"facebook-page-page/facebook_edges.csv":  {1882610, "7c50d8f02a75cc0829577814a1fc14535164daa38d79c3612340c9e9cdbd4022"},
	"facebook-page-page/facebook.json":       {2088766, "ea870537646a93642a0008d38aa9bfeff02018070ba97b1f3f469d9622626436"},
	"facebook-page-page/facebook_target.csv": {1177912, "7bd96eafea3c2ca40f44bfa9e73642194696c21e38c7b29ed409c32ad14075cd"},
	"snap-email-enron/email-Enron.txt.gz":    {1054970, "e4611471ed181699b36e2aafc313e077fb25d16ed67ec5a81591eb8d8b40a5bc"},
	"snap-ca-grqc/ca-GrQc.txt":               {351704, "f8ce6e931e068b878044b783da99ef603f566c87bcbce7991cd53720879f1660"},
	"snap-ca-grqc/CA-GrQc_train.txt":         {125021, "2e8b28f4df2696ef5c9e1223a0c861c60b4c6fdbc9681956292a48e4bf9efc22"},
	"snap-ca-grqc/CA-GrQc_test.txt":          {13916, "fa5b7b11f11bba177ee8793586d990427908ddc4f8b2a9c1e07d6fa854c8ba1f"},
	"snap-ca-grqc/CA-GrQc_test_neg.txt":      {13863, "e12ab68ea433dda5288b5b4b6410c856f5a9a164a804699396ba1af9206a7d9e"},
	"gnnbench-npz/cora.npz":                  {540580, "068e22d90c3849b4057dfb05851741428992af058efcd4e7ebb4186f3d581de2"},
	"gnnbench-npz/citeseer.npz":              {1348784, "280278b21b434c047922e8389518861416fb3ad39389c27865ff0e6bbb0aaab7"},
	"aifb/aifb_stripped.nt.gz":               {568040, "ba4191235456e09d8f12a2415f24273b8d7641ffee6001ca9340f02c04d77fea"},
	"aifb/completeDataset.tsv":               {28465, "8c758d2dda7e720e2a75c4fd3cc876ddd9bb16226b979aae630737260ff5a8a7"},
	"aifb/trainingSet.tsv":                   {22927, "4960629668c6548215871321e4b6daaee24191f38f41ccfbc4de62016d18c5a7"},
	"aifb/testSet.tsv":                       {5921, "abe4a9e7c393164996d1fe7250d72ec1f1a7b350583f2dff5d880f60ec04b3b6"},
	"rgcn-mutag/mutag_stripped.nt.gz":        {645053, "871f24a766fd377f0adf995f50aea70fd03e4997c6051b3abff3384c08e56ac7"},
	"rgcn-mutag/completeDataset.tsv":         {16477, "d81b169a2f3d88b750dd5717062b58f2088fedda1b806e8d5f74373407933e71"},
	"rgcn-mutag/trainingSet.tsv":             {14283, "d2fe71b68bb25735465128b4aed50d9b165fa5ab92aa2e221fad3d1cd87b7297"},
	"rgcn-mutag/testSet.tsv":                 {3581, "20e69309a037cbf0fb2b52be3eaa6c43888215cbc0b96e8f8bd9e2af55652a3f"},
	"heco-acm/a_feat.npz":                    {1961252, "e2f2ac8d357310149fc7badbf32ea0b171dec25aad6c37ec45de592666c65555"},
	"heco-acm/labels.npy":                    {32280, "019284b3e6a58fc8ebd432fb99aaaf183ad41dbf56b8ca7af0b56dca9dd844b5"},
	"heco-acm/p_feat.npz":                    {495879, "9e1019dfceaaabb19ee5b5f09de3147ffbaa818b43c3fc3f92bdfaf4ed5f02f4"},
	"heco-acm/pa.txt":                        {128122, "e67385fc13c3b3b624d81de7eb6e4245d9aeafa063c5466c6fab0f151bcb84d6"},
	"heco-acm/ps.txt":                        {30181, "3da7615ef5567c5f7f1ab9ec770c4b4b8b6a54790baa1cda3d4499329dfc22d5"},
	"heco-acm/test_20.npy":                   {8128, "eb90e38c882009c6439d749d160d39ed64f8813e9f672c02be54993914934afa"},
	"heco-acm/test_40.npy":                   {8128, "f73d7e23459dd654a7567ee8bf123849f400096f8fac558dc37033d3fdc11aa6"},
	"heco-acm/test_60.npy":                   {8128, "5181ccdeacc54b88ed53681ba9f2c789cc6d67a499f40a68ac6827a96932b976"},
	"heco-acm/train_20.npy":                  {608, "6bf4c1cef638f3ffe1826091b9be7fbff23a4935dfbde03c24b492d264d67684"},
	"heco-acm/train_40.npy":                  {1088, "98239282e69e9775a9b13bc54598cc780eca31dcaeb81963efbbd4c6c3e51435"},
	"heco-acm/train_60.npy":                  {1568, "5b86f56415b84d1faa8c8f864cd37272589ec4ffff1b0ca347d4c39ee38dcc02"},
	"heco-acm/val_20.npy":                    {8128, "4280dccb661a50196502a39973a462919399fcfcd97b1d43581dfa9ca02d1b5d"},
	"heco-acm/val_40.npy":                    {8128, "19fb1e72b76bc24da95423d1a83583a42fe5b62d69b2b197312f630ff5096202"},
	"heco-acm/val_60.npy":                    {8128, "e234b6c1e19445ed6cc3694a273b943bbded8e847a9d0246f18d59f76fb8cd5d"},
}

// checkRelease verifies the file at path against the published file it
// stands for, recognised by its last two path components as it lies in a
// data directory ("<folder>/<file>", a releaseFiles key such as
// facebook-page-page/facebook_edges.csv), and returns nil for any other
// file (a user's own file or a test fixture elsewhere). A file of
// another size or sha256 is an error wrapping ErrChecksum that names the
// file: loaders call it after their structural checks passed, so what
// those cannot see (a cut at a line boundary, a changed byte) is still
// reported rather than loaded as a smaller or different graph. The file
// is hashed only when its size matches.
func checkRelease(path string) error {
	rel := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
	pin, ok := releaseFiles[rel]
	if !ok {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("datasets: opening %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("datasets: %s: %w", path, err)
	}
	if st.Size() != pin.size {
		return fmt.Errorf("%w: %s is not the published %s: %d bytes, want %d (the file is truncated or corrupt; replace it with the original file)",
			ErrChecksum, path, rel, st.Size(), pin.size)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("datasets: reading %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != pin.sha256 {
		return fmt.Errorf("%w: %s is not the published %s: sha256 %s, want %s (the file is corrupt; replace it with the original file)",
			ErrChecksum, path, rel, got, pin.sha256)
	}
	return nil
}
