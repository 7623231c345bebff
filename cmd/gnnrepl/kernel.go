package main

import "github.com/gnnrepl/gnnrepl/kernel"

// runKernel runs `gnnrepl kernel ARGS...` (the Jupyter kernel, and
// `gnnrepl kernel install`) and returns the exit status.
var runKernel func(args []string) int = kernel.Main
