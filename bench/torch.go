package main

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed py/*.py
var pyScripts embed.FS

// torchEnv is a Python interpreter that imports torch.
type torchEnv struct {
	python  string // path of the interpreter
	version string // torch.__version__
	config  string // first lines of torch.__config__.show() that name the BLAS
	dir     string // where the embedded scripts were written
}

// findTorch returns the first Python that imports torch: $BENCH_PYTHON,
// /usr/bin/python3 (Debian's, where python3-torch installs), python3. When
// none does and install is set it runs apt-get install -y python3-torch and
// looks again. log receives what it tried.
func findTorch(workDir string, install bool, log func(string, ...any)) (*torchEnv, error) {
	try := func() *torchEnv {
		cands := []string{os.Getenv("BENCH_PYTHON"), "/usr/bin/python3", "python3"}
		for _, c := range cands {
			if c == "" {
				continue
			}
			out, err := exec.Command(c, "-c", "import torch, numpy; print(torch.__version__)").Output()
			if err != nil {
				continue
			}
			te := &torchEnv{python: c, version: strings.TrimSpace(string(out))}
			if cfg, err := exec.Command(c, "-c", "import torch; print(torch.__config__.show())").Output(); err == nil {
				for _, l := range strings.Split(string(cfg), "\n") {
					l = strings.TrimSpace(l)
					if !strings.Contains(l, "Build settings") && (strings.Contains(l, "MKL") || strings.Contains(l, "OpenMP")) {
						te.config += strings.TrimPrefix(l, "- ") + "; "
					}
					if i := strings.Index(l, "BLAS_INFO="); i >= 0 {
						te.config += strings.SplitN(l[i:], ",", 2)[0] + "; "
					}
				}
				te.config = strings.TrimSuffix(te.config, "; ")
			}
			// Debian's torch links libblas.so.3, which the alternatives
			// system points at OpenBLAS, BLIS or the reference BLAS.
			if real, err := filepath.EvalSymlinks("/usr/lib/x86_64-linux-gnu/libblas.so.3"); err == nil {
				te.config += "; libblas.so.3 -> " + real
			}
			return te
		}
		return nil
	}
	te := try()
	if te == nil && install {
		log("torch not importable; running apt-get install -y python3-torch python3-numpy")
		cmd := exec.Command("apt-get", "install", "-y", "python3-torch", "python3-numpy")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			log("apt-get failed: %v\n%s", err, lastLines(string(out), 5))
		}
		te = try()
	}
	if te == nil {
		return nil, fmt.Errorf("no python with torch (tried $BENCH_PYTHON, /usr/bin/python3, python3)")
	}
	te.dir = filepath.Join(workDir, "py")
	if err := os.MkdirAll(te.dir, 0o755); err != nil {
		return nil, err
	}
	ents, _ := pyScripts.ReadDir("py")
	for _, e := range ents {
		b, _ := pyScripts.ReadFile("py/" + e.Name())
		if err := os.WriteFile(filepath.Join(te.dir, e.Name()), b, 0o644); err != nil {
			return nil, err
		}
	}
	return te, nil
}

// run runs py/<script> with one JSON argument and decodes the JSON object
// on the last line of its standard output into out.
func (te *torchEnv) run(script string, args map[string]any, out any) error {
	a, _ := json.Marshal(args)
	cmd := exec.Command(te.python, filepath.Join(te.dir, script), string(a))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), fmt.Sprintf("OMP_NUM_THREADS=%v", args["threads"]))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", script, err, lastLines(stderr.String(), 8))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), out); err != nil {
		return fmt.Errorf("%s: decoding its result: %v (stdout %q)", script, err, lastLines(stdout.String(), 3))
	}
	return nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
