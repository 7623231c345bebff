package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PlanetoidMirrors lists the base URLs that missing Planetoid files are
// downloaded from, tried in order; a file's URL is base + "ind.<name>.<suffix>".
// Both are public GitHub snapshots holding byte-identical files (the same git
// blob ids): kimiyoung/planetoid at commit af6abf4 (the original release) and
// tkipf/gcn at commit 39a4089. Tests replace this list with a local server.
var PlanetoidMirrors = []string{
	"https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/",
	"https://raw.githubusercontent.com/tkipf/gcn/39a4089fe72ad9f055ed6fdb9746abdcfebc4d81/gcn/data/",
}

// PlanetoidNames are the Planetoid datasets LoadPlanetoidRaw knows, in the
// lower-case spelling of the file names.
var PlanetoidNames = []string{"cora", "citeseer", "pubmed"}

// PlanetoidSuffixes are the eight file suffixes of one Planetoid dataset.
var PlanetoidSuffixes = []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"}

type pinned struct {
	suffix string
	size   int64
	sha256 string
}

// planetoidPinned holds the size and sha256 of every original file (from the
// shared data README's inventory, checked against the files).
var planetoidPinned = map[string][]pinned{
	"cora": {
		{"allx", 257305, "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543"},
		{"ally", 47959, "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71"},
		{"graph", 59847, "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d"},
		{"test.index", 5000, "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875"},
		{"tx", 148025, "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a"},
		{"ty", 28135, "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad"},
		{"x", 22119, "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab"},
		{"y", 4054, "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1"},
	},
	"citeseer": {
		{"allx", 595021, "2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668"},
		{"ally", 55623, "f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95"},
		{"graph", 61987, "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7"},
		{"test.index", 5000, "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4"},
		{"tx", 260321, "539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21"},
		{"ty", 24135, "55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce"},
		{"x", 31087, "d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6"},
		{"y", 3014, "8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924"},
	},
	"pubmed": {
		{"allx", 7578385, "508e538e2abdccdd54c4d3e9f49d638b4af7107d85845f66ddea5a5152658b7e"},
		{"ally", 224739, "0c37bbe3b5014ec365e9d393cf4791925e5ed94fb194305d74f064a8d7b50f0e"},
		{"graph", 471808, "5b89f0036ca22909471f1e6558eb42fa06e0c730a577bde5b058b40638f81dc9"},
		{"test.index", 6000, "b101d421688bbaecbd82e8a18f1e282378d6830f3a37666f28ebc47f844341b5"},
		{"tx", 405505, "4eb5f5d0f30f26497eb0ac6ac9719d09c67e284f1ed0385c93f3ef27a671da3d"},
		{"ty", 12135, "ee2e0d4819d9fbcc403689c3bf2e49face401b605932f093bc58ab6461130fdd"},
		{"x", 23172, "fbe9cb5c47200d1b7769a26e579be3b7130b556831f9d850e77c4c74f2599b33"},
		{"y", 854, "e6c807633307a07ed659249006536a147c7999c797f11a2560752990181b41b3"},
	},
}

// PlanetoidFiles returns the eight files of the Planetoid dataset name
// ("cora", "citeseer" or "pubmed", case-insensitive) with their pinned sizes,
// sha256 and download URLs (from PlanetoidMirrors), in the order of
// PlanetoidSuffixes. An unknown name is an error wrapping ErrArgument.
func PlanetoidFiles(name string) ([]FileSpec, error) {
	name, err := planetoidName(name)
	if err != nil {
		return nil, err
	}
	specs := make([]FileSpec, 0, len(PlanetoidSuffixes))
	for _, suf := range PlanetoidSuffixes {
		for _, p := range planetoidPinned[name] {
			if p.suffix != suf {
				continue
			}
			file := "ind." + name + "." + suf
			urls := make([]string, len(PlanetoidMirrors))
			for i, m := range PlanetoidMirrors {
				urls[i] = m + file
			}
			specs = append(specs, FileSpec{Rel: name + "/" + file, Size: p.size, SHA256: p.sha256, URLs: urls})
		}
	}
	return specs, nil
}

func planetoidName(name string) (string, error) {
	l := strings.ToLower(name)
	if _, ok := planetoidPinned[l]; !ok {
		return "", fmt.Errorf("%w: unknown Planetoid dataset %q (want one of cora, citeseer, pubmed)", ErrArgument, name)
	}
	return l, nil
}

// CheckPlanetoid reports whether the eight files of dataset name are present
// under dir with their pinned sizes and sha256, without downloading
// anything: nil when they are; else an error naming the first missing file
// (wrapping ErrMissing, with how many of the eight are missing) or the first
// corrupt one (wrapping ErrChecksum). An unknown name wraps ErrArgument.
// Command-line front ends call it to refuse a data directory given
// explicitly that lacks the dataset they preload.
func CheckPlanetoid(dir, name string) error {
	specs, err := PlanetoidFiles(name)
	if err != nil {
		return err
	}
	var missing []string
	for _, s := range specs {
		p := filepath.Join(dir, filepath.FromSlash(s.Rel))
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, p)
			continue
		}
		if err != nil {
			return fmt.Errorf("datasets: reading %s: %w", p, err)
		}
		if err := verify(b, s); err != nil {
			return fmt.Errorf("%w: %s is corrupt or truncated (%v); replace it with the original file", ErrChecksum, p, err)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s is missing (%d of the %d files of %s are)", ErrMissing, missing[0], len(missing), len(specs), name)
	}
	return nil
}

// EnsurePlanetoid makes sure the eight files of dataset name are present under
// dir with their pinned checksums, downloading the missing ones (see
// LoadPlanetoidRaw for the errors). It is what a "download" command calls.
func EnsurePlanetoid(dir, name string) error {
	specs, err := PlanetoidFiles(name)
	if err != nil {
		return err
	}
	for _, s := range specs {
		if _, err := ensureFile(dir, s); err != nil {
			return err
		}
	}
	return nil
}
