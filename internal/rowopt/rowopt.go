// Package rowopt holds the row-wise updates of the sparse optimizers
// (optim.SparseAdam for nn.Embedding tables, dist's SparseAdam and
// SparseAdagrad for DistEmbedding tables): one row of weights w, its
// optimizer state and its summed gradient g, all of one width.
package rowopt

import "math"

// Adam applies the t-th Adam update of one row (t counts this row's own
// updates, from 1; DGL's and torch's SparseAdam): m = b1 m + (1-b1) g,
// v = b2 v + (1-b2) g^2, w -= lr (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps),
// with g scaled by scale first. m and v are computed in float64 and stored
// as float32.
func Adam(w, m, v, g []float32, scale float32, t int, lr, b1, b2, eps float64) {
	c1, c2 := 1-math.Pow(b1, float64(t)), 1-math.Pow(b2, float64(t))
	for q := range g {
		gq := float64(g[q] * scale)
		mq := b1*float64(m[q]) + (1-b1)*gq
		vq := b2*float64(v[q]) + (1-b2)*gq*gq
		m[q], v[q] = float32(mq), float32(vq)
		w[q] -= float32(lr * (mq / c1) / (math.Sqrt(vq/c2) + eps))
	}
}

// Adagrad applies one Adagrad update of one row (DGL's SparseAdagrad):
// s += g^2, w -= lr g / (sqrt(s) + eps), with g scaled by scale first.
func Adagrad(w, s, g []float32, scale float32, lr, eps float64) {
	for q := range g {
		gq := g[q] * scale
		s[q] += gq * gq
		w[q] -= float32(lr * float64(gq) / (math.Sqrt(float64(s[q])) + eps))
	}
}
