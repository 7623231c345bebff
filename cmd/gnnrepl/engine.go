package main

import "github.com/gnnrepl/gnnrepl/builtins"

// setupEngine prepares the engine before a session starts or doctor
// reports: OpenBLAS when present (builtins.Setup).
func setupEngine() { builtins.Setup() }
