// Package early runs memrelease.Setup from its init function: a main
// package imports it (blank) so that the re-execution with
// GODEBUG=madvdontneed=0 happens before the packages whose init is
// expensive. Go initializes packages in import-path order as soon as their
// imports are, so this one (which imports only memrelease and the standard
// library) runs before package tensor's init, which opens OpenBLAS and so
// starts its thread pool: re-executing after that cost a whole second
// start-up of the binary, about 75 ms of the Jupyter kernel's start, for
// the threads to be torn down. Test binaries (named *.test by go test)
// are not re-executed; package testing is not imported to tell, as its own
// imports would delay this init past tensor's.
package early

import (
	"os"
	"strings"

	"github.com/gnnrepl/gnnrepl/internal/memrelease"
)

func init() {
	if !strings.HasSuffix(os.Args[0], ".test") {
		memrelease.Setup()
	}
}
