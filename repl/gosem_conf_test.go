package repl

import (
	"testing"
)

// TestConstGroupExpansion: const groups whose specs declare several names
// from iota (yaegi: "constant definition loop") mean what the spec says,
// at the top level and in functions, typed or not.
func TestConstGroupExpansion(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "type lvl int\nconst (\n\tlo, loX lvl = iota, iota * 10\n\tmid, midX\n\t_, _\n\thi, hiX\n)")
	if got := eval(t, s, `fmt.Sprint(lo, loX, mid, midX, hi, hiX)`); got != `"0 0 1 10 3 30"` {
		t.Errorf("typed group: %s", got)
	}
	if got := eval(t, s, `fmt.Sprintf("%v", lvl(0) == hi-3)`); got != `"true"` {
		t.Errorf("typed group has type lvl: %s", got)
	}
	eval(t, s, "func flags() string {\n\tconst (\n\t\ta, b = 1 << iota, -iota\n\t\tc, d\n\t\te, f\n\t)\n\treturn fmt.Sprint(a, b, c, d, e, f)\n}")
	if got := eval(t, s, "flags()"); got != `"1 0 2 -1 4 -2"` {
		t.Errorf("group in a function: %s", got)
	}
	// Single-name groups are left to yaegi, iota and repetition included.
	if got := eval(t, s, "const (\n\tk0 = iota * 2\n\tk1\n\tk2\n)\nk0 + k1 + k2"); got != "6" {
		t.Errorf("single-name group: %s", got)
	}
}
