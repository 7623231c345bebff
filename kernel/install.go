package kernel

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"

	"github.com/gnnrepl/gnnrepl/internal/atomicfile"
)

// InstallOptions choose where and under which name Install writes the
// kernelspec.
type InstallOptions struct {
	// User installs for the current user (Jupyter's user data directory,
	// ~/.local/share/jupyter on Linux, or $JUPYTER_DATA_DIR).
	User bool
	// Prefix installs under Prefix/share/jupyter (a virtual environment or
	// a conda prefix). User and Prefix are exclusive; with neither the
	// system directory /usr/local/share/jupyter is used.
	Prefix string
	// Name is the kernelspec's directory name, used with
	// `jupyter console --kernel NAME`; default "gnnrepl". Jupyter allows
	// ASCII letters, digits, '.', '_' and '-'.
	Name string
	// DisplayName is shown in notebook menus; default "Go (gnnrepl)".
	DisplayName string
	// Executable is the gnnrepl binary Jupyter starts; default the running
	// executable.
	Executable string
	// DataDir, when set, is recorded as GNNREPL_DATA in the kernelspec's
	// env, so that the kernel's dataset loaders (and its preloaded ds) read
	// that directory whatever environment Jupyter was started in. It is
	// made absolute; it need not exist yet (loaders download into it).
	DataDir string
}

var kernelNameRE = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

// KernelsDir returns the directory holding kernelspecs for opts, following
// jupyter_core's paths: JUPYTER_DATA_DIR or the user data directory with
// User, PREFIX/share/jupyter with Prefix, /usr/local/share/jupyter
// otherwise; each with "/kernels" appended.
func KernelsDir(opts InstallOptions) (string, error) {
	if opts.User && opts.Prefix != "" {
		return "", fmt.Errorf("kernel: install: --user and --prefix are exclusive")
	}
	switch {
	case opts.User:
		d, err := userDataDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "kernels"), nil
	case opts.Prefix != "":
		p, err := filepath.Abs(opts.Prefix)
		if err != nil {
			return "", fmt.Errorf("kernel: install: prefix %s: %w", opts.Prefix, err)
		}
		return filepath.Join(p, "share", "jupyter", "kernels"), nil
	default:
		if runtime.GOOS == "windows" {
			if pd := os.Getenv("PROGRAMDATA"); pd != "" {
				return filepath.Join(pd, "jupyter", "kernels"), nil
			}
		}
		return "/usr/local/share/jupyter/kernels", nil
	}
}

// userDataDir is jupyter_core's jupyter_data_dir.
func userDataDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("kernel: install: no home directory for --user: %w", err)
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Jupyter"), nil
	case "windows":
		if a := os.Getenv("APPDATA"); a != "" {
			return filepath.Join(a, "jupyter"), nil
		}
		return filepath.Join(home, "AppData", "Roaming", "jupyter"), nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "jupyter"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter"), nil
}

// kernelSpec is the content of kernel.json.
type kernelSpec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode"`
	Metadata      map[string]any    `json:"metadata"`
	Env           map[string]string `json:"env,omitempty"`
}

// Install writes the kernelspec directory DIR/NAME (see KernelsDir) with
// kernel.json, whose argv is [Executable, "kernel", "-f",
// "{connection_file}"], whose interrupt_mode is "message" (interrupts
// arrive as interrupt_request on the control channel) and whose env holds
// GNNREPL_DATA when opts.DataDir is set, and two logos,
// logo-32x32.png and logo-64x64.png, drawn at install time. An existing
// kernelspec of the same name is overwritten. It returns the directory
// written. Errors name the path that could not be written.
func Install(opts InstallOptions) (string, error) {
	if opts.Name == "" {
		opts.Name = "gnnrepl"
	}
	if !kernelNameRE.MatchString(opts.Name) {
		return "", fmt.Errorf("kernel: install: name %q may only hold ASCII letters, digits, '.', '_' and '-'", opts.Name)
	}
	if opts.DisplayName == "" {
		opts.DisplayName = "Go (gnnrepl)"
	}
	if opts.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("kernel: install: locating the gnnrepl executable: %w", err)
		}
		opts.Executable = exe
	}
	exe, err := filepath.Abs(opts.Executable)
	if err != nil {
		return "", fmt.Errorf("kernel: install: executable %s: %w", opts.Executable, err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	var env map[string]string
	if opts.DataDir != "" {
		d, err := filepath.Abs(opts.DataDir)
		if err != nil {
			return "", fmt.Errorf("kernel: install: data directory %s: %w", opts.DataDir, err)
		}
		// Every kernel started from this spec would fail on a directory
		// that is not there: refuse it now.
		if fi, err := os.Stat(d); err != nil {
			return "", fmt.Errorf("kernel: install: --data: %w", err)
		} else if !fi.IsDir() {
			return "", fmt.Errorf("kernel: install: --data %s is not a directory", d)
		}
		env = map[string]string{"GNNREPL_DATA": d}
	}
	base, err := KernelsDir(opts)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, opts.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("kernel: install: %w", err)
	}
	spec := kernelSpec{
		Argv:          []string{exe, "kernel", "-f", "{connection_file}"},
		DisplayName:   opts.DisplayName,
		Language:      "go",
		InterruptMode: "message",
		Metadata:      map[string]any{"debugger": false},
		Env:           env,
	}
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return "", fmt.Errorf("kernel: install: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "kernel.json"), append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("kernel: install: %w", err)
	}
	for _, size := range []int{32, 64} {
		name := filepath.Join(dir, fmt.Sprintf("logo-%dx%d.png", size, size))
		if err := writeLogo(name, size); err != nil {
			return "", fmt.Errorf("kernel: install: %w", err)
		}
	}
	return dir, nil
}

func writeLogo(path string, size int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, Logo(size)); err != nil {
		f.Close()
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return f.Close()
}

// Logo draws the kernel's size x size logo: a small graph (five nodes,
// six edges) in white on a rounded square of Go's blue (#00ADD8), with 4x4
// supersampled anti-aliasing.
func Logo(size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	s := float64(size)
	nodes := [][2]float64{{0.27, 0.30}, {0.70, 0.24}, {0.48, 0.55}, {0.25, 0.75}, {0.76, 0.72}}
	edges := [][2]int{{0, 1}, {0, 2}, {1, 2}, {2, 3}, {2, 4}, {1, 4}}
	const sub = 4
	blue := [3]float64{0x00, 0xAD, 0xD8}
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var cover, white float64
			for sy := 0; sy < sub; sy++ {
				for sx := 0; sx < sub; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/sub) / s
					y := (float64(py) + (float64(sy)+0.5)/sub) / s
					if !inRoundedSquare(x, y, 0.04, 0.18) {
						continue
					}
					cover++
					on := false
					for _, n := range nodes {
						if math.Hypot(x-n[0], y-n[1]) <= 0.085 {
							on = true
						}
					}
					for _, e := range edges {
						if segDist(x, y, nodes[e[0]], nodes[e[1]]) <= 0.028 {
							on = true
						}
					}
					if on {
						white++
					}
				}
			}
			if cover == 0 {
				continue
			}
			a := cover / (sub * sub)
			w := white / cover
			var c [3]uint8
			for i := range c {
				c[i] = uint8(math.Round(blue[i]*(1-w) + 255*w))
			}
			img.SetNRGBA(px, py, color.NRGBA{c[0], c[1], c[2], uint8(math.Round(255 * a))})
		}
	}
	return img
}

// inRoundedSquare reports whether (x, y) lies in the square [m, 1-m]^2 with
// corners rounded to radius r.
func inRoundedSquare(x, y, m, r float64) bool {
	if x < m || y < m || x > 1-m || y > 1-m {
		return false
	}
	cx := math.Min(math.Max(x, m+r), 1-m-r)
	cy := math.Min(math.Max(y, m+r), 1-m-r)
	return math.Hypot(x-cx, y-cy) <= r
}

// segDist is the distance from (x, y) to the segment a-b.
func segDist(x, y float64, a, b [2]float64) float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	t := ((x-a[0])*dx + (y-a[1])*dy) / (dx*dx + dy*dy)
	t = math.Max(0, math.Min(1, t))
	return math.Hypot(x-(a[0]+t*dx), y-(a[1]+t*dy))
}
