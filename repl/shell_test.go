package repl

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/chzyer/readline"
)

// runShellKeys runs the interactive shell loop on s with keys typed into
// its line editor (a pipe standing in for the terminal), and returns what
// it printed on its output and error streams.
func runShellKeys(t *testing.T, s *Session, keys string) (string, string) {
	t.Helper()
	r, w := io.Pipe()
	out, errOut := &syncBuffer{}, &syncBuffer{}
	rl, err := newLineEditor(&readline.Config{
		Prompt:         Prompt,
		AutoComplete:   completer{s},
		Stdin:          r,
		Stdout:         io.Discard,
		Stderr:         io.Discard,
		FuncIsTerminal: func() bool { return true },
		FuncMakeRaw:    func() error { return nil },
		FuncExitRaw:    func() error { return nil },
		FuncGetWidth:   func() int { return 80 },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	go func() {
		for _, k := range keys { // one key at a time, as typed
			if _, err := w.Write([]byte(string(k))); err != nil {
				return
			}
		}
		w.Close()
	}()
	done := make(chan error, 1)
	go func() { done <- shellLoop(s, rl, out, errOut, func(context.CancelFunc) {}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shell: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the shell did not end")
	}
	return out.String(), errOut.String()
}

// TestShellCommandOnContinuationLine: :quit typed while an input is
// unfinished quits (issue 14); a line inside an open raw string is text.
func TestShellCommandOnContinuationLine(t *testing.T) {
	s, _, _ := newSession(t)
	out, errOut := runShellKeys(t, s, "s := `a\r:quit\r`\rlen(s)\rfunc f() {\r:quit\r}\rnever := 1\r")
	if strings.TrimSpace(out) != "8" || errOut != "" {
		t.Errorf("out %q, err %q; want the raw string's length 8 and no error", out, errOut)
	}
	if _, err := s.Eval(context.Background(), "never"); err == nil {
		t.Error("the shell went on reading after :quit")
	}
	if _, err := s.Eval(context.Background(), "f"); err == nil {
		t.Error("the unfinished input before :quit was evaluated")
	}
}

// TestShellInterruptClosesCompletion: Ctrl-C while the completion list is
// shown abandons the input, as at a plain prompt (issue 14); readline
// alone only closed the list and kept the line.
func TestShellInterruptClosesCompletion(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "abc1, abc2 := 1, 2")
	out, errOut := runShellKeys(t, s, "func g() {\rab\t\t\x031 + 1\r:quit\r")
	if strings.TrimSpace(out) != "2" || errOut != "" {
		t.Errorf("out %q, err %q; want 2 and no error (the input before Ctrl-C abandoned)", out, errOut)
	}
}
