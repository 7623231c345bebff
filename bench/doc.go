// Command bench runs gnnrepl's workloads beside the same work written in
// plain PyTorch (1.13 CPU, Debian's python3-torch) on the same machine in the
// same run, and prints a table of times and ratios (gnnrepl / PyTorch; below
// 1 means gnnrepl is faster). It writes the table, with a description of the
// machine (CPU model, cores, memory, load average, Go, torch and BLAS
// versions), to bench/RESULTS.md.
//
//	go run ./bench                 # default sizes, about 5-10 minutes on 2 cores
//	go run ./bench -quick          # tiny sizes, a smoke run
//	go run ./bench -sampler-nodes 2400000 -sampler-edges 62000000   # products scale
//
// Workloads:
//
//	(a) gcn      one full-graph GCN epoch (forward, masked cross-entropy,
//	             backward, Adam step) in Kipf & Welling's setup (2 layers, 16
//	             hidden, dropout 0.5 on the input and the hidden layer, Adam lr
//	             0.01, weight decay 5e-4 on the first layer) on Cora, CiteSeer
//	             and Facebook page-page, with the same normalised adjacency
//	             D^-1/2 (A+I) D^-1/2 on both sides (the PyTorch side uses
//	             torch.sparse.mm), plus the test accuracy after 200 epochs on
//	             Cora (mean over seeds) on both sides.
//	(b) sage     one GraphSAGE-mean training step (forward, cross-entropy,
//	             backward, Adam) on identical sampled blocks: gnnrepl samples
//	             fanouts [15, 10] for 1024 seeds of a synthetic graph and writes
//	             the blocks, input features, labels and initial weights as .npy
//	             files (layout in sage.go); the PyTorch script reads them and
//	             runs the same step. The losses of two consecutive steps must
//	             agree (relative 1e-3) on both sides.
//	(c) sampler  NeighborSampler throughput in sampled edges per second (all
//	             blocks' edges) on a synthetic power-law graph built in Go,
//	             fanouts [15, 10, 5], batches of 1024; gnnrepl only.
//	(d) interp   the acceptance GraphSAGE training loop on Cora through the
//	             DataLoader (40 epochs, acceptance.TrainSAGE) compiled versus
//	             the same loop typed into an in-process gnnrepl session
//	             (testdata/train_sage_timed.go); the test accuracies must be
//	             identical.
//	(e) kernel   Jupyter kernel startup (process spawn to the first
//	             kernel_info_reply with IOPub delivering) and the median
//	             execute_request("1+1") round trip to status idle, measured
//	             with jupyter_client against gnnrepl's kernel and Debian's
//	             ipykernel in the same run (py/kernel.py; ipykernel sits in
//	             the PyTorch column).
//
// Every time is the median of -reps repetitions after -warmup untimed ones.
// PyTorch runs with torch.set_num_threads(GOMAXPROCS). The PyTorch scripts
// are embedded (py/) and run by the first of $BENCH_PYTHON, /usr/bin/python3
// and python3 that imports torch; when none does, the harness runs
// apt-get install -y python3-torch (unless -no-install) and, failing that,
// reports gnnrepl's numbers alone.
//
// Errors: any failed workload is reported in the table's note column and
// the run goes on; the exit status is 1 when a workload failed or a
// correctness check (loss or accuracy agreement) did not hold.
package main
