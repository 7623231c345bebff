// Command gensym writes the yaegi symbol table of each engine package named
// on its command line into the current directory (builtins), as
// `yaegi extract` does, less the names listed in gen.Excluded (engine
// plumbing that sessions must not call). yaegi's own -exclude flag takes
// regular expressions on the command line; the list lives in Go instead, one
// line per name with its reason, shared with the doc generator and
// TestGeneratedUpToDate.
//
// Usage (from the builtins directory, as go generate runs it):
//
//	go run ./internal/gensym github.com/gnnrepl/gnnrepl/tensor
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gnnrepl/gnnrepl/builtins/internal/gen"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gensym importpath...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	for _, ip := range flag.Args() {
		src, err := gen.Extract(ip)
		if err == nil {
			err = os.WriteFile(gen.SymbolFileName(ip), src, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gensym:", err)
			os.Exit(1)
		}
	}
}
