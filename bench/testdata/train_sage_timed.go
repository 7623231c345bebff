// Workload (d) of bench/: acceptance/testdata/train_sage.go (GraphSAGE-mean
// on Cora through the DataLoader, fanouts [15, 10], batches of 32, 40
// epochs, full-graph evaluation every epoch) typed into a session, run
// benchReps times from fresh weights (seed 0, as the preloaded model) and
// timed from the model's construction to the last evaluation, exactly what
// acceptance.TrainSAGE(ds, 0, 0) does compiled. The session defines
// benchReps before running this script. Prints one "REP seconds accuracy"
// line per repetition.
for rep := 0; rep < benchReps; rep++ {
	t0 := time.Now()
	model := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 64, OutFeats: ds.NumClasses, Dropout: 0.5, Seed: 0})
	opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	// Declared first: yaegi may lose a := tuple assignment from a compiled
	// call inside a loop body.
	var loader *sampling.DataLoader
	var err error
	loader, err = sampling.NewDataLoader(g, ds.TrainIdx, sampler, sampling.LoaderOptions{BatchSize: 32, Shuffle: true, Seed: 1, PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
	if err != nil {
		panic(err)
	}
	feat, labels := g.NData("feat"), g.NData("label")
	valLabels, testLabels := tensor.IndexSelect(labels, ds.ValIdx), tensor.IndexSelect(labels, ds.TestIdx)
	bestVal, testAcc := 0.0, 0.0
	for epoch := 0; epoch < 40; epoch++ {
		model.Train()
		for loader.Next() {
			blocks := loader.Blocks()
			logits := model.ForwardBlocks(blocks, blocks[0].SrcData("feat"))
			loss := tensor.CrossEntropy(logits, blocks[len(blocks)-1].DstData("label"))
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
		}
		if err := loader.Err(); err != nil {
			panic(err)
		}
		model.Eval()
		tensor.NoGrad(func() {
			out := model.Forward(g, feat)
			if va := tensor.Accuracy(tensor.IndexSelect(out, ds.ValIdx), valLabels); va > bestVal {
				bestVal, testAcc = va, tensor.Accuracy(tensor.IndexSelect(out, ds.TestIdx), testLabels)
			}
		})
	}
	loader.Close()
	fmt.Printf("REP %.6f %.6f\n", time.Since(t0).Seconds(), testAcc)
}
