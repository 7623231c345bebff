package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/profile"
)

// TestQuick is the harness's smoke test: every workload at a tiny size
// (Cora only, a few repetitions), PyTorch parts included only when a Python
// with torch is already installed (the test never runs apt-get), the data
// parts skipped only when the shared data folder is absent. It checks that
// nothing failed (the SAGE losses agree with PyTorch's, the interpreted and
// compiled loops reach the same accuracy) and that RESULTS.md is written.
func TestQuick(t *testing.T) {
	cfg := quickConfig()
	cfg.NoInstall = true
	cfg.AccSeeds, cfg.Reps = 0, 2
	cfg.TorchAggs = []string{"coo"}
	cfg.DataDir = defaultDataDir(moduleRoot())
	cfg.Only = map[string]bool{"sage": true, "sampler": true}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "cora")); err == nil {
		cfg.Only["gcn"], cfg.Only["interp"] = true, true
	} else {
		t.Logf("shared data not found at %s: skipping the GCN and interpreter workloads", cfg.DataDir)
	}
	if testing.Short() {
		cfg.Only["interp"] = false
	}
	cfg.Work = t.TempDir()
	rep := run(cfg, testWriter{t})
	for _, f := range rep.Failures {
		t.Error(f)
	}
	if rep.Machine.Torch == "not available" {
		t.Log("no Python with torch: PyTorch parts skipped")
	}
	var sb strings.Builder
	printTable(&sb, rep)
	t.Log("\n" + sb.String())
	want := 0
	for _, on := range cfg.Only {
		if on {
			want++
		}
	}
	if len(rep.Rows) != want {
		t.Errorf("%d table rows, want %d", len(rep.Rows), want)
	}
	out := filepath.Join(t.TempDir(), "RESULTS.md")
	if err := writeResults(out, rep); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "| (c) sampler") {
		t.Errorf("RESULTS.md lacks the sampler row (%v)", err)
	}
}

// TestWriteNPY checks the .npy header: magic, version, 64-byte alignment.
func TestWriteNPY(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.npy")
	if err := writeNPY(p, []int64{1, 2, 3, 4, 5, 6}, 2, 3); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	hl := int(b[8]) | int(b[9])<<8
	if string(b[:8]) != "\x93NUMPY\x01\x00" || (10+hl)%64 != 0 || len(b) != 10+hl+48 {
		t.Errorf("bad npy: header length %d, file length %d", hl, len(b))
	}
	if h := string(b[10 : 10+hl]); !strings.Contains(h, "'shape': (2, 3)") || !strings.Contains(h, "'<i8'") {
		t.Errorf("header %q", h)
	}
	if err := writeNPY(p, []float32{1}, 2); err == nil {
		t.Error("shape mismatch not reported")
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// BenchmarkSAGEStep is workload (b)'s gnnrepl side at the default size
// (one GraphSAGE training step on the same sampled blocks), for profiling:
//
//	go test ./bench -run XXX -bench SAGEStep -cpuprofile cpu.out
func BenchmarkSAGEStep(b *testing.B) {
	s, err := newSAGESetup(defaultConfig().SAGE)
	if err != nil {
		b.Fatal(err)
	}
	m, opt := s.build()
	s.step(m, opt)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.step(m, opt)
	}
}

// TestSAGEStepProfile prints the profiler's op table of ten workload (b)
// steps when GNNREPL_PROFILE_SAGE is set (a tool, not a check).
func TestSAGEStepProfile(t *testing.T) {
	if os.Getenv("GNNREPL_PROFILE_SAGE") == "" {
		t.Skip("set GNNREPL_PROFILE_SAGE=1 to print the profile")
	}
	s, err := newSAGESetup(defaultConfig().SAGE)
	if err != nil {
		t.Fatal(err)
	}
	m, opt := s.build()
	s.step(m, opt)
	r := profile.Run(func() {
		for i := 0; i < 10; i++ {
			s.step(m, opt)
		}
	})
	t.Log("\n" + r.Table("self", 30))
}
