// GraphSAGE (mean) on Cora through the DataLoader with fanouts [15, 10],
// typed into a gnnrepl session that has the preloaded ds, g, sampler, model
// and opt. The test accuracy is read at the epoch of best validation
// accuracy. acceptance.TrainSAGE runs the same steps compiled.
loader, err := sampling.NewDataLoader(g, ds.TrainIdx, sampler, sampling.LoaderOptions{BatchSize: 32, Shuffle: true, Seed: 1, PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
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
	model.Eval()
	tensor.NoGrad(func() {
		out := model.Forward(g, feat)
		if va := tensor.Accuracy(tensor.IndexSelect(out, ds.ValIdx), valLabels); va > bestVal {
			bestVal, testAcc = va, tensor.Accuracy(tensor.IndexSelect(out, ds.TestIdx), testLabels)
		}
	})
}
fmt.Printf("best val %.4f test accuracy %.4f\n", bestVal, testAcc)
