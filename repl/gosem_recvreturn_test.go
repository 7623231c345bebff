package repl

import "testing"

// TestReturnReceive: `return <-ch` runs (yaegi panics, traefik/yaegi#1725;
// found by a new user), in functions and literals, with other results.
func TestReturnReceive(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "func d() int { c := make(chan int, 1); c <- 4; return <-c }")
	eval(t, s, "e := func(k int) (int, bool) { c := make(chan int, 1); c <- 7; return <-c, k > 0 }")
	eval(t, s, "func ok(c chan string) (string, bool) { v, open := <-c; return v, open }")
	if got := eval(t, s, "x, y := e(1); fmt.Sprint(d(), x, y)"); got != `"4 7 true"` {
		t.Errorf("got %s, want \"4 7 true\"", got)
	}
	if got := eval(t, s, "cs := make(chan string, 1); cs <- \"a\"; fmt.Sprint(ok(cs))"); got != `"atrue"` {
		t.Errorf("comma-ok receive: %s", got)
	}
}
