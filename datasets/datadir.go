package datasets

import (
	"os"
	"path/filepath"
)

// DataDirEnv is the environment variable naming the data directory.
const DataDirEnv = "GNNREPL_DATA"

// DataDir resolves the data directory that loaders read from and download
// into. It returns, in order of preference:
//
//   - flagValue, when it is non-empty (a command-line flag such as -data);
//   - the value of the environment variable GNNREPL_DATA, when non-empty;
//   - os.UserCacheDir()/gnnrepl/data (on Linux $XDG_CACHE_HOME/gnnrepl/data
//     or ~/.cache/gnnrepl/data);
//   - os.TempDir()/gnnrepl/data when no user cache directory is known.
//
// The directory is not created; loaders create the subfolders they need when
// they download. Each dataset lives in its own subfolder, so a checked-out
// copy of the shared test data works as is (GNNREPL_DATA=/work/shared/data).
func DataDir(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if v := os.Getenv(DataDirEnv); v != "" {
		return v
	}
	if c, err := os.UserCacheDir(); err == nil && c != "" {
		return filepath.Join(c, "gnnrepl", "data")
	}
	return filepath.Join(os.TempDir(), "gnnrepl", "data")
}

// PlanetoidPath returns where the Planetoid file ind.<name>.<suffix> lives
// under the data directory dir: <dir>/<name>/ind.<name>.<suffix>. It does not
// check that name or suffix are known.
func PlanetoidPath(dir, name, suffix string) string {
	return filepath.Join(dir, name, "ind."+name+"."+suffix)
}
