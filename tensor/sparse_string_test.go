package tensor

import "testing"

func TestAdjString(t *testing.T) {
	a := &Adj{NumSrc: 3, NumDst: 2, Indptr: []int64{0, 2, 3}, Indices: []int64{0, 1, 2}}
	if got, want := a.String(), "Adj(num_src=3, num_dst=2, num_edges=3)"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	var nilAdj *Adj
	if got := nilAdj.String(); got != "Adj(nil)" {
		t.Fatalf("nil String() = %q", got)
	}
}
