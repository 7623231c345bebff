//go:build linux || darwin || freebsd

package repl

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/gnnrepl/gnnrepl/builtins"
)

func TestCaptureFDs(t *testing.T) {
	var out, errOut syncBuffer
	c, err := CaptureFDs(&out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(os.Stdout, "compiled stdout")
	// Descriptor 2 directly: under go test -json (test2json) the testing
	// package sets os.Stderr = os.Stdout, so os.Stderr is descriptor 1.
	syscall.Write(2, []byte("compiled stderr\n"))
	syscall.Write(1, []byte("raw fd 1\n"))
	// Interpreted code printing through a session whose Stdout is os.Stdout.
	opts := DefaultOptions()
	opts.Prelude = builtins.PreludeImports
	s, err := New(opts)
	if err != nil {
		c.Restore()
		t.Fatal(err)
	}
	_, evalErr := s.Eval(context.Background(), `fmt.Println("interpreted")`)
	fmt.Fprintln(c.Stderr, "not captured")
	if err := c.Restore(); err != nil {
		t.Fatal(err)
	}
	if evalErr != nil {
		t.Fatal(evalErr)
	}
	if got, want := out.String(), "compiled stdout\nraw fd 1\ninterpreted\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if got, want := errOut.String(), "compiled stderr\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	if err := c.Restore(); err != nil {
		t.Errorf("second Restore: %v", err)
	}
}
