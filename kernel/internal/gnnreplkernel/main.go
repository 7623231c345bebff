// Command gnnreplkernel runs the Jupyter kernel exactly as `gnnrepl kernel`
// does (kernel.Main): `gnnreplkernel kernel -f CONNECTION_FILE` and
// `gnnreplkernel kernel install [...]`. The kernel's tests build it to drive
// the kernel with real Jupyter clients (jupyter_client, jupyter console)
// without depending on cmd/gnnrepl.
package main

import (
	"fmt"
	"os"

	"github.com/gnnrepl/gnnrepl/kernel"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "kernel" {
		fmt.Fprintln(os.Stderr, "usage: gnnreplkernel kernel -f CONNECTION_FILE | gnnreplkernel kernel install [--user | --prefix DIR] [--name NAME]")
		os.Exit(2)
	}
	os.Exit(kernel.Main(os.Args[2:]))
}
