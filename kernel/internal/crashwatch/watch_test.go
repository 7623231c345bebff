//go:build linux

package crashwatch

import "testing"

func TestReportStart(t *testing.T) {
	report := "\nruntime stack:\nruntime.throw(...)\n\ngoroutine 1 [running]:\n"
	for _, c := range []struct {
		rest string
		want int
	}{
		{"fatal error: stack overflow\n" + report[:20], 28},    // the copy, cut by the pipe's size
		{"fatal error: stack overflow\n" + report, 28},         // the whole copy
		{"fatal error: stack overflow\n", 28},                  // no copy (the pipe was full)
		{"", 0},                                                // nothing left
		{"user\n\nruntime\nfatal error: x\n" + report[:9], 29}, // a near match earlier is not the copy
		{"hello\nfatal error: x\n\nrun", 25},                   // four bytes of the copy: too few to tell
		{"hello\nfatal error: x\n\nruntime", 21},               // eight
	} {
		if got := reportStart([]byte(c.rest), []byte(report)); got != c.want {
			t.Errorf("reportStart(%q) = %d, want %d", c.rest, got, c.want)
		}
	}
}

// TestReportStartCutCopy: the copy on descriptor 2 may lack a piece further
// on (a write to the full pipe cut short); its start still marks it, so
// the report is not written twice.
func TestReportStartCutCopy(t *testing.T) {
	var report []byte
	for i := 0; len(report) < 4096; i++ {
		report = append(report, []byte("goroutine 1 [running]:\nmain.f(...)\n\t/x.go:12 +0x1f\n")...)
	}
	reason := "fatal error: runtime: out of memory\n"
	rest := reason + string(report[:1000]) + string(report[1500:3000])
	if got := reportStart([]byte(rest), report); got != len(reason) {
		t.Errorf("reportStart = %d, want %d", got, len(reason))
	}
}
