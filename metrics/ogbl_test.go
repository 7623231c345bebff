package metrics

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// The expected values are those of OGB's Evaluator (the torch branch of
// ogb/linkproppred/evaluate.py's _eval_hits and _eval_mrr, run with torch
// 1.13 on these scores), and agree with the counts worked out below.

func TestOGBLinkEvaluatorHits(t *testing.T) {
	pos := tensor.FromFloat32([]float32{0.9, 0.5, 0.3, 0.7, 0.6, 0.05}, 6)
	neg := tensor.FromFloat32([]float32{0.8, 0.6, 0.4, 0.2, 0.1, 0.6, 0.35, 0}, 8)
	e, err := NewOGBLinkEvaluator("ogbl-collab")
	if err != nil || e != (OGBLinkEvaluator{Name: "ogbl-collab", Metric: "hits@50", K: 50}) {
		t.Fatalf("%+v %v", e, err)
	}
	for _, c := range []struct {
		k    int
		want float64
	}{
		{3, 2.0 / 6}, // 3rd negative 0.6: 0.9 and 0.7 above it; 0.6 ties, not above
		{1, 1.0 / 6}, // above 0.8: 0.9
		{8, 1},       // above the 8th, 0: all
		{9, 1},       // fewer negatives than K
		{50, 1},      // ogbl-collab's K
	} {
		e := OGBLinkEvaluator{Name: "x", Metric: "hits@" + strconv.Itoa(c.k), K: c.k}
		r, err := e.Eval(pos, neg)
		if err != nil || len(r) != 1 || math.Abs(r[e.Metric]-c.want) > 1e-12 {
			t.Errorf("hits@%d = %v, %v; want %v", c.k, r, err, c.want)
		}
	}
	for name, k := range map[string]int{"ogbl-ppa": 100, "ogbl_ddi": 20} {
		if e, err := NewOGBLinkEvaluator(name); err != nil || e.K != k || e.Metric != "hits@"+strconv.Itoa(k) {
			t.Errorf("%s: %+v %v", name, e, err)
		}
	}
	e, _ = NewOGBLinkEvaluator("ogbl-vessel")
	if r, err := e.Eval(pos, neg); err != nil || math.Abs(r["rocauc"]-mustAUC(t, pos, neg)) > 1e-12 {
		t.Errorf("rocauc %v %v", r, err)
	}
}

func TestOGBLinkEvaluatorMRR(t *testing.T) {
	// Row 0: 0.5 against 0.9, 0.5, 0.1, 0.5: 1 above, 2 ties: rank 3.
	// Row 1: 0.2 against 0.1, 0, 0.3, 0.2: 1 above, 1 tie: rank 2.5.
	// Row 2: 0.9 above all: rank 1.
	pos := tensor.FromFloat32([]float32{0.5, 0.2, 0.9}, 3)
	neg := tensor.FromFloat32([]float32{0.9, 0.5, 0.1, 0.5, 0.1, 0, 0.3, 0.2, 0.1, 0.2, 0.3, 0.4}, 3, 4)
	e, err := NewOGBLinkEvaluator("ogbl-citation2")
	if err != nil || e.Metric != "mrr" {
		t.Fatalf("%+v %v", e, err)
	}
	r, err := e.Eval(pos, neg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"mrr": (1.0/3 + 1/2.5 + 1) / 3, "hits@1": 1.0 / 3, "hits@3": 1, "hits@10": 1}
	for k, v := range want {
		if math.Abs(r[k]-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, r[k], v)
		}
	}
	if len(r) != len(want) {
		t.Errorf("keys %v", r)
	}
	if m, _ := MRR(pos, neg); math.Abs(m-r["mrr"]) > 1e-12 {
		t.Errorf("MRR %v vs Eval %v", m, r["mrr"])
	}
}

func TestOGBLinkEvaluatorErrors(t *testing.T) {
	if _, err := NewOGBLinkEvaluator("ogbn-arxiv"); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "ogbl-citation2") {
		t.Errorf("unknown name: %v", err)
	}
	hits, _ := NewOGBLinkEvaluator("ogbl-ddi")
	mrr, _ := NewOGBLinkEvaluator("ogbl-citation2")
	p, n1, n2 := tensor.Ones(3), tensor.Ones(4), tensor.Ones(3, 4)
	for _, c := range []struct {
		name     string
		e        OGBLinkEvaluator
		pos, neg *tensor.Tensor
		kind     error
		inMsg    string
	}{
		{"hits 2-D neg", hits, p, n2, ErrShape, "neg must be 1-D"},
		{"mrr 1-D neg", mrr, p, n1, ErrShape, "neg must be 2-D (P, K)"},
		{"mrr rows", mrr, p, tensor.Ones(2, 4), ErrShape, "(3, K)"},
		{"2-D pos", hits, n2, n1, ErrShape, "pos must be 1-D"},
		{"nil", hits, nil, n1, ErrArgument, "pos nil: true"},
		{"ints", hits, p, tensor.FromInt64([]int64{1, 2}, 2), ErrArgument, "floating-point"},
		{"NaN", mrr, tensor.FromFloat32([]float32{float32(math.NaN())}, 1), tensor.Ones(1, 2), ErrArgument, "NaN"},
		{"zero value", OGBLinkEvaluator{}, p, n1, ErrArgument, "NewOGBLinkEvaluator"},
	} {
		_, err := c.e.Eval(c.pos, c.neg)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.inMsg) {
			t.Errorf("%s: %v; want %v containing %q", c.name, err, c.kind, c.inMsg)
		}
	}
}

func mustAUC(t *testing.T, pos, neg *tensor.Tensor) float64 {
	v, err := ROCAUC(pos, neg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
