// Command gendoc writes builtins/docs_gen.go, the doc table sessions use for
// inspection and :doc, from the doc comments of the engine packages listed on
// the gensym go:generate lines of builtins/gen.go, less gen.Excluded.
//
// Usage (from the builtins directory, as go generate runs it):
//
//	go run ./internal/gendoc -o docs_gen.go
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gnnrepl/gnnrepl/builtins/internal/gen"
)

func main() {
	out := flag.String("o", "docs_gen.go", "output file")
	genFile := flag.String("gen", "gen.go", "file whose go:generate lines list the packages")
	flag.Parse()
	if err := run(*genFile, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gendoc:", err)
		os.Exit(1)
	}
}

func run(genFile, out string) error {
	pkgs, err := gen.Packages(genFile)
	if err != nil {
		return err
	}
	root, modPath, err := gen.Module(".")
	if err != nil {
		return err
	}
	src, err := gen.Docs(root, modPath, pkgs)
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}
