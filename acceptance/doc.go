// Package acceptance holds the end-to-end checks of the main job: models
// trained on the real Planetoid datasets through the public API, compiled
// (this package's reference programs) and typed into a gnnrepl session
// (testdata/train_sage.go, the same steps), whose results must agree.
package acceptance
