package memrelease

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain lets the test binary play the program: with MEMRELEASE_CHILD
// set it calls Setup (which re-executes it) and prints the GODEBUG it ends
// up with.
func TestMain(m *testing.M) {
	if os.Getenv("MEMRELEASE_CHILD") != "" {
		Setup()
		fmt.Printf("GODEBUG=%q %s\n", os.Getenv("GODEBUG"), Mode())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestSetupReexecutes(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		// The user's GODEBUG comes back after the re-execution.
		{"", `GODEBUG="" lazy (MADV_FREE: GODEBUG=madvdontneed=0 set at start)`},
		{"GODEBUG=gctrace=0", `GODEBUG="gctrace=0" lazy (MADV_FREE: GODEBUG=madvdontneed=0 set at start)`},
		{"GODEBUG=madvdontneed=1", `GODEBUG="madvdontneed=1" immediate (MADV_DONTNEED, set by GODEBUG)`},
		{"GODEBUG=madvdontneed=0", `GODEBUG="madvdontneed=0" lazy (MADV_FREE: GODEBUG=madvdontneed=0)`},
		{Env + "=keep", `GODEBUG="" immediate (MADV_DONTNEED: ` + Env + `=keep)`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append([]string{"MEMRELEASE_CHILD=1"}, filterEnv(os.Environ())...)
		if c.env != "" {
			cmd.Env = append(cmd.Env, c.env)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v: %s", c.env, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("with %q the program runs with %s, want %s", c.env, got, c.want)
		}
	}
}

// filterEnv drops the variables the cases set themselves.
func filterEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GODEBUG=") && !strings.HasPrefix(kv, Env+"=") && !strings.HasPrefix(kv, userEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}
