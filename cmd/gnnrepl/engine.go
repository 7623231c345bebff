package main

// setupEngine prepares the engine before a session starts: it is where the
// CPU BLAS is chosen once the tensor package provides OpenBLAS.
func setupEngine() {}
