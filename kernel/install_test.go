package kernel

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestKernelsDir(t *testing.T) {
	t.Setenv("JUPYTER_DATA_DIR", "")
	t.Setenv("XDG_DATA_HOME", "")
	home := t.TempDir()
	t.Setenv("HOME", home)
	cases := []struct {
		opts InstallOptions
		want string
	}{
		{InstallOptions{User: true}, filepath.Join(home, ".local/share/jupyter/kernels")},
		{InstallOptions{Prefix: "/opt/venv"}, "/opt/venv/share/jupyter/kernels"},
		{InstallOptions{}, "/usr/local/share/jupyter/kernels"},
	}
	for _, c := range cases {
		if got, err := KernelsDir(c.opts); err != nil || got != c.want {
			t.Errorf("KernelsDir(%+v) = %q, %v; want %q", c.opts, got, err, c.want)
		}
	}
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if got, _ := KernelsDir(InstallOptions{User: true}); got != "/xdg/jupyter/kernels" {
		t.Errorf("XDG_DATA_HOME: %s", got)
	}
	t.Setenv("JUPYTER_DATA_DIR", "/jd")
	if got, _ := KernelsDir(InstallOptions{User: true}); got != "/jd/kernels" {
		t.Errorf("JUPYTER_DATA_DIR: %s", got)
	}
	if _, err := KernelsDir(InstallOptions{User: true, Prefix: "/p"}); err == nil {
		t.Error("--user with --prefix accepted")
	}
}

func TestInstall(t *testing.T) {
	prefix := t.TempDir()
	exe := filepath.Join(prefix, "bin", "gnnrepl")
	os.MkdirAll(filepath.Dir(exe), 0o755)
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	dir, err := Install(InstallOptions{Prefix: prefix, Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(prefix, "share/jupyter/kernels/gnnrepl"); dir != want {
		t.Errorf("dir %s, want %s", dir, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	wantArgv := []any{exe, "kernel", "-f", "{connection_file}"}
	if !reflect.DeepEqual(spec["argv"], wantArgv) || spec["display_name"] != "Go (gnnrepl)" || spec["language"] != "go" || spec["interrupt_mode"] != "message" {
		t.Errorf("kernel.json %s", b)
	}
	for _, size := range []int{32, 64} {
		f, err := os.ReadFile(filepath.Join(dir, "logo-"+itoa(size)+"x"+itoa(size)+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != size || b.Dy() != size {
			t.Errorf("logo %d has bounds %v", size, b)
		}
		// Corners are transparent, the middle is painted.
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("logo %d corner alpha %d", size, a)
		}
		if _, _, _, a := img.At(size/2, size/8).RGBA(); a == 0 {
			t.Errorf("logo %d is empty", size)
		}
	}
	// Installing again overwrites; other names and display names work.
	dir2, err := Install(InstallOptions{Prefix: prefix, Executable: exe, Name: "gnnrepl-dev", DisplayName: "Go (dev)"})
	if err != nil || !strings.HasSuffix(dir2, "gnnrepl-dev") {
		t.Fatalf("%s %v", dir2, err)
	}
	if _, err := Install(InstallOptions{Prefix: prefix, Executable: exe}); err != nil {
		t.Errorf("reinstall: %v", err)
	}
	// A data directory is recorded as GNNREPL_DATA in the kernel's env,
	// as an absolute path; one that is not there is refused.
	dataDir := t.TempDir()
	rel, err := filepath.Rel(".", dataDir)
	if err != nil {
		rel = dataDir
	}
	dir3, err := Install(InstallOptions{Prefix: prefix, Executable: exe, Name: "gnnrepl-data", DataDir: rel})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(dir3, "kernel.json"))
	var withEnv struct{ Env map[string]string }
	abs, _ := filepath.Abs(rel)
	if err := json.Unmarshal(b, &withEnv); err != nil || withEnv.Env["GNNREPL_DATA"] != abs {
		t.Errorf("kernel.json with DataDir: %s (%v)", b, err)
	}
	if _, ok := spec["env"]; ok {
		t.Errorf("kernel.json without DataDir has an env: %v", spec["env"])
	}
	for _, bad := range []string{filepath.Join(dataDir, "missing"), filepath.Join(dir3, "kernel.json")} {
		if _, err := Install(InstallOptions{Prefix: prefix, Executable: exe, Name: "gnnrepl-bad", DataDir: bad}); err == nil || !strings.Contains(err.Error(), "--data") {
			t.Errorf("DataDir %s: err %v, want an error naming --data", bad, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir3), "gnnrepl-bad")); err == nil {
		t.Error("a refused install left a kernelspec directory")
	}
	for _, bad := range []string{"has space", "a/b", "..x/y"} {
		if _, err := Install(InstallOptions{Prefix: prefix, Executable: exe, Name: bad}); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestCommandInstallAndUsage(t *testing.T) {
	prefix := t.TempDir()
	var out, errb bytes.Buffer
	cmd := Command{NewSession: func() (Session, error) { return newFake(), nil }, Stdout: &out, Stderr: &errb}
	if code := cmd.Run([]string{"install", "--prefix", prefix, "--name", "gotest"}); code != 0 {
		t.Fatalf("install: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(prefix, "share/jupyter/kernels/gotest/kernel.json")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(out.String(), "Installed kernelspec gotest") {
		t.Errorf("stdout %q", out.String())
	}
	for _, args := range [][]string{{}, {"-f"}, {"extra"}, {"install", "--bogus"}, {"install", "x"}} {
		if code := cmd.Run(args); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	if code := cmd.Run([]string{"install", "--user", "--prefix", prefix}); code != 1 {
		t.Errorf("--user --prefix: exit %d, want 1", code)
	}
	errb.Reset()
	if code := cmd.Run([]string{"-f", filepath.Join(prefix, "missing.json")}); code != 1 || !strings.Contains(errb.String(), "missing.json") {
		t.Errorf("missing connection file: exit %d, %q", code, errb.String())
	}
}
