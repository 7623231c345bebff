package builtins

// MemStats returns a human-readable table of tensor memory per device
// (allocated, peak), printed by the shell's :mem command. It is nil until the
// tensor package provides it (builtins will then set it in an init function);
// front ends print "no memory statistics" while it is nil.
var MemStats func() string

// BLAS names the CPU BLAS the engine uses, for `gnnrepl doctor`. The tensor
// package will provide the real answer (OpenBLAS opened at run time, or
// gonum's pure-Go BLAS); until then it reports gonum.
var BLAS = func() string { return "gonum (pure Go)" }
