package dist

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/runctx"
)

// fakeRank is a stand-in for `gnnrepl run FILE`: a shell script that each
// rank runs as `fakeRank run FILE` with $MODE set, so that Launch's
// streaming, rank attribution, failure reports and interrupt are tested
// without building gnnrepl.
const fakeRank = `#!/bin/sh
r=$OMPI_COMM_WORLD_RANK
echo "epoch 1 on rank $r"
echo "a warning from rank $r" >&2
case "$MODE" in
ok) echo "accuracy: 0.$((80 + r))" ;;
fail) if [ "$r" = 1 ]; then echo "panic: bad shape on rank 1"; exit 3; fi; sleep 60 ;;
hang) sleep 60 ;;
esac
`

func launchSetup(t *testing.T) (bin, file string) {
	t.Helper()
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("mpirun not found (apt-get install openmpi-bin libopenmpi3)")
	}
	dir := t.TempDir()
	bin = filepath.Join(dir, "fake-gnnrepl")
	file = filepath.Join(dir, "train.go")
	if err := os.WriteFile(bin, []byte(fakeRank), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, file
}

// syncBuffer is a bytes.Buffer safe for Launch's streaming goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLaunch(t *testing.T) {
	bin, file := launchSetup(t)
	env := []string{"OMPI_MCA_btl=self,vader"}

	var out syncBuffer
	res, err := Launch(2, file, LaunchOptions{Binary: bin, Out: &out, Env: append(env, "MODE=ok"), LogDir: t.TempDir()})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if res.ExitCode != 0 || res.Metric != "accuracy" || res.Value != 0.80 || len(res.Logs) != 2 {
		t.Fatalf("result %+v", res)
	}
	for _, want := range []string{"[rank 0] epoch 1 on rank 0", "[rank 1] accuracy: 0.81", "[rank 1] a warning from rank 1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("streamed output lacks %q:\n%s", want, out.String())
		}
	}
	if b, _ := os.ReadFile(res.Logs[1]); !strings.Contains(string(b), "accuracy: 0.81") {
		t.Errorf("rank 1 log: %q", b)
	}
	t.Logf("%v", res)

	// A failing rank: an error naming it and its last lines, within seconds
	// although rank 0 would sleep a minute.
	start := time.Now()
	res, err = Launch(2, file, LaunchOptions{Binary: bin, Out: &out, Env: append(env, "MODE=fail"), LogDir: t.TempDir()})
	if err == nil || !errors.Is(err, ErrMPI) || !strings.Contains(err.Error(), "rank 1 of 2 failed") || !strings.Contains(err.Error(), "panic: bad shape on rank 1") {
		t.Fatalf("failing rank: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second || res.ExitCode == 0 {
		t.Fatalf("failing rank: after %v, exit %d", d, res.ExitCode)
	}
	t.Logf("failure after %v: %v", time.Since(start), err)

	// An interrupt of the running cell kills every rank.
	ctx, cancel := context.WithCancel(context.Background())
	restore := runctx.Set(ctx)
	defer restore()
	time.AfterFunc(1500*time.Millisecond, cancel)
	start = time.Now()
	res, err = Launch(2, file, LaunchOptions{Binary: bin, Out: &out, Env: append(env, "MODE=hang"), LogDir: t.TempDir()})
	if !errors.Is(err, context.Canceled) || res.ExitCode != -1 {
		t.Fatalf("interrupt: %v %+v", err, res)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("interrupt took %v", d)
	}
	t.Logf("interrupted after %v: %v", time.Since(start), err)

	if _, err := Launch(0, file, LaunchOptions{}); !errors.Is(err, ErrArgument) {
		t.Errorf("n = 0: %v", err)
	}
	if _, err := Launch(2, filepath.Join(t.TempDir(), "missing.go"), LaunchOptions{}); !errors.Is(err, ErrArgument) {
		t.Errorf("missing file: %v", err)
	}
}
