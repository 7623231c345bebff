package main

// runKernel runs `gnnrepl kernel ARGS...` and returns the exit status. It
// is the Jupyter kernel package's entry point once that package is wired in
// (runKernel = kernel.Main); nil means the kernel is not built in.
var runKernel func(args []string) int
