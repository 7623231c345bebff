package repl

import (
	"context"
	"strings"
	"testing"
)

// TestFailedCellChangesNothing: a cell that does not compile leaves the
// session's variables as they were (found by trying the shell as a new
// user: a typo after opt := ... replaced the prelude's optimizer).
func TestFailedCellChangesNothing(t *testing.T) {
	s := newPreludeSession(t)
	show := func(expr string) string {
		t.Helper()
		r, err := s.Eval(context.Background(), expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return r.Text
	}
	before := show("opt")
	beforeModel := show("model")
	eval(t, s, "a := 1")
	for _, cell := range []string{
		"opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.1}); opt.Stepp()",
		`model := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: 1433, HiddenFeats: 16, OutFeats: 7}); model.Frward(g, g.NData("feat"))`,
		`a := "str"; a.X()`,
	} {
		if _, err := s.Eval(context.Background(), cell); err == nil {
			t.Fatalf("%s: no error", cell)
		}
	}
	if got := show("opt"); got != before {
		t.Errorf("opt changed by a failed cell: %s, was %s", got, before)
	}
	if got := show("model"); got != beforeModel {
		t.Errorf("model changed by a failed cell: %s, was %s", got, beforeModel)
	}
	if got := show("a"); strings.TrimSpace(got) != "1" {
		t.Errorf("a = %s after a failed cell, want 1", got)
	}
}
