package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// kernelResult is what py/kernel.py measured for one kernel (seconds).
type kernelResult struct {
	Startup      float64   `json:"startup"`
	Startups     []float64 `json:"startups"`
	FirstCell    float64   `json:"first_cell"`
	RoundTrip    float64   `json:"round_trip"`
	RoundTripP90 float64   `json:"round_trip_p90"`
	RoundTripRaw float64   `json:"round_trip_raw"`
}

// kernelBench is workload (e): it builds gnnrepl, and runs py/kernel.py,
// which starts gnnrepl's kernel and Debian's ipykernel from their
// kernelspec argv and measures startup to the first kernel_info_reply and
// the execute("1+1") round trip with jupyter_client. The gnnrepl kernel
// gets GNNREPL_DATA=dataDir, so its prelude loads Cora as a user's does.
func kernelBench(root, work, dataDir string, runs, reps int) (gn, ipy kernelResult, err error) {
	python := ""
	for _, c := range []string{os.Getenv("BENCH_PYTHON"), "/usr/bin/python3", "python3"} {
		if c != "" && exec.Command(c, "-c", "import jupyter_client, ipykernel").Run() == nil {
			python = c
			break
		}
	}
	if python == "" {
		return gn, ipy, fmt.Errorf("no python with jupyter_client and ipykernel (apt-get install jupyter-client python3-ipykernel)")
	}
	bin := filepath.Join(work, "gnnrepl")
	build := exec.Command("go", "build", "-o", bin, "./cmd/gnnrepl")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return gn, ipy, fmt.Errorf("go build ./cmd/gnnrepl: %v\n%s", err, out)
	}
	script := filepath.Join(work, "kernel.py")
	b, _ := pyScripts.ReadFile("py/kernel.py")
	if err := os.WriteFile(script, b, 0o644); err != nil {
		return gn, ipy, err
	}
	args, _ := json.Marshal(map[string]any{
		"kernels": []map[string]any{
			{"name": "gnnrepl", "argv": []string{bin, "kernel", "-f", "{connection_file}"}},
			{"name": "ipykernel", "argv": []string{python, "-m", "ipykernel_launcher", "-f", "{connection_file}"}},
		},
		"runs": runs, "reps": reps, "warmup": 5,
	})
	cmd := exec.Command(python, script, string(args))
	cmd.Env = append(os.Environ(), "GNNREPL_DATA="+dataDir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return gn, ipy, fmt.Errorf("kernel.py: %v: %s", err, lastLines(stderr.String(), 8))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var res map[string]kernelResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		return gn, ipy, fmt.Errorf("kernel.py: decoding its result: %v", err)
	}
	return res["gnnrepl"], res["ipykernel"], nil
}
