package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// machine describes where the numbers were measured.
type machine struct {
	CPU, Cores, Memory, GoVersion, GOMAXPROCS, BLAS, Torch, TorchBuild, Python, OS string
}

func describeMachine() machine {
	m := machine{GoVersion: runtime.Version(), GOMAXPROCS: fmt.Sprint(runtime.GOMAXPROCS(0)),
		BLAS: tensor.BLASName(), Torch: "not available", OS: runtime.GOOS + "/" + runtime.GOARCH}
	if out, err := exec.Command("lscpu").Output(); err == nil {
		var sockets, cps, tpc, cpus string
		for _, l := range strings.Split(string(out), "\n") {
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			switch strings.TrimSpace(k) {
			case "Model name":
				m.CPU = v
			case "CPU(s)":
				cpus = v
			case "Socket(s)":
				sockets = v
			case "Core(s) per socket":
				cps = v
			case "Thread(s) per core":
				tpc = v
			}
		}
		m.Cores = fmt.Sprintf("%s logical CPUs (%s socket(s) x %s core(s) x %s thread(s))", cpus, sockets, cps, tpc)
	}
	if m.CPU == "" {
		m.CPU = "unknown (lscpu failed)"
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "MemTotal:") || strings.HasPrefix(l, "MemAvailable:") {
				f := strings.Fields(l)
				var kb float64
				fmt.Sscan(f[1], &kb)
				m.Memory += fmt.Sprintf("%s %.1f GiB ", strings.TrimSuffix(f[0], ":"), kb/(1<<20))
			}
		}
		m.Memory = strings.TrimSpace(m.Memory)
	}
	return m
}

// loadAvg returns /proc/loadavg's three load averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
