package dist

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gnnrepl/gnnrepl/runctx"
)

// LaunchOptions configures Launch. The zero value runs `mpirun
// --oversubscribe -np N gnnrepl run FILE` with this process's gnnrepl
// binary, streaming every rank's lines to os.Stdout.
type LaunchOptions struct {
	// MPIRun is the launcher; "" looks up mpirun (then mpiexec) in PATH.
	MPIRun string
	// MPIArgs are extra launcher arguments, put before -np.
	MPIArgs []string
	// Binary is the program each rank runs as `Binary BinaryArgs... run
	// FILE`; "" is this process's executable (os.Executable: the gnnrepl
	// binary of the notebook's kernel or the shell).
	Binary string
	// BinaryArgs go before "run" (for example "--data", DIR; the data
	// directory of this process, GNNREPL_DATA, is inherited anyway).
	BinaryArgs []string
	// LogDir receives one log per rank (rank0.log, ...) and mpirun.log (the
	// launcher's own lines); "" makes a new temporary folder.
	LogDir string
	// Out receives the streamed lines, "[rank R] line"; nil is os.Stdout
	// (a notebook kernel shows it in the running cell).
	Out io.Writer
	// Quiet streams only rank 0's lines (every rank's are still logged).
	Quiet bool
	// Env is added to the ranks' environment (KEY=VALUE): the way to pass
	// settings to the script, since `gnnrepl run` takes no arguments.
	Env []string
	// Timeout, when positive, stops the job after that long (an error).
	Timeout time.Duration
}

// LaunchResult is what Launch returns: rank 0's result and where the logs
// are.
type LaunchResult struct {
	// ExitCode is the launcher's exit status (0: every rank succeeded; -1:
	// killed on interrupt or timeout).
	ExitCode int
	// LastLine is rank 0's last line of standard output; Metric and Value
	// are its "name: value" parts when it has that form (examples print
	// their final metric so), else "" and NaN.
	LastLine string
	Metric   string
	Value    float64
	// LogDir holds rank0.log ... rankN-1.log (each rank's standard output
	// and error, in order) and mpirun.log.
	LogDir string
	// Logs are the per-rank log paths, by rank.
	Logs []string
	// Elapsed is the wall time of the job.
	Elapsed time.Duration
}

// String is "dist.LaunchResult{exit 0, accuracy: 0.81, logs /tmp/...}".
func (r *LaunchResult) String() string {
	return fmt.Sprintf("dist.LaunchResult{exit %d, %q, %.1fs, logs %s}", r.ExitCode, r.LastLine, r.Elapsed.Seconds(), r.LogDir)
}

// rankWrapper runs one rank ("$@": the binary and its arguments) and
// reports its exit status when it fails; rankExitPrefix starts that line.
const (
	rankWrapper    = `"$@"; rc=$?; if [ $rc -ne 0 ]; then if [ $rc -gt 128 ]; then w="was killed by signal $((rc - 128))"; else w="exited with status $rc"; fi; echo "gnnrepl launch: this rank $w" >&2; fi; exit $rc`
	rankExitPrefix = "gnnrepl launch: this rank "
)

// tagLine matches Open MPI's --tag-output prefix "[1,R]<stdout>:".
var tagLine = regexp.MustCompile(`^\[\d+,(\d+)\]<(stdout|stderr|stddiag)>:(.*)$`)

// failedRank finds the rank mpirun names in its failure report.
var failedRank = []*regexp.Regexp{
	regexp.MustCompile(`Process name: \[\[\d+,\d+\],(\d+)\]`),
	regexp.MustCompile(`MPI_ABORT was invoked on rank (\d+)`),
	regexp.MustCompile(`gnnrepl: rank (\d+) of \d+ failed`),
}

// Launch runs the script file on n ranks under MPI and waits for it, as a
// notebook's way of running `mpirun -np N gnnrepl run FILE` (torch's
// elastic launch, DGL's launch.py, for one host): every rank's output lines
// are streamed to opts.Out as they come, prefixed "[rank R] ", and kept in
// a log per rank; an interrupt of the running cell (runctx: the kernel's
// interrupt, Ctrl-C in the shell) or opts.Timeout kills the launcher's
// whole process group, every rank with it, within a few seconds. It
// returns rank 0's last output line, parsed as "name: value" when it has
// that form (the convention of examples/*.go), and the exit status.
//
// The launcher is Open MPI's mpirun (run as root it gets
// --allow-run-as-root; --oversubscribe always, so n may exceed the cores)
// with --tag-output, which is how lines are told apart by rank; another
// launcher's lines all go to rank 0's log. Each rank runs under /bin/sh,
// which adds "gnnrepl launch: this rank exited with status N" (or "was
// killed by signal N") to the rank's stream when it fails, so the failing
// rank is named even when mpirun's own report does not say which it was. Errors: n < 1, a missing file
// or launcher (ErrArgument, ErrNoMPI), a job that exits non-zero (ErrMPI,
// naming the failing rank as mpirun reports it and that rank's last
// lines; the result is returned too), an interrupt or the timeout (an error of the
// context's kind: errors.Is(err, context.Canceled) or
// context.DeadlineExceeded).
func Launch(n int, file string, opts LaunchOptions) (*LaunchResult, error) {
	const op = "Launch"
	if n < 1 {
		return nil, errf(ErrArgument, op, "n = %d ranks; want at least 1", n)
	}
	if _, err := os.Stat(file); err != nil {
		return nil, errf(ErrArgument, op, "the script: %v", err)
	}
	mpirun := opts.MPIRun
	if mpirun == "" {
		for _, name := range []string{"mpirun", "mpiexec"} {
			if p, err := exec.LookPath(name); err == nil {
				mpirun = p
				break
			}
		}
		if mpirun == "" {
			return nil, errf(ErrNoMPI, op, "no mpirun or mpiexec in PATH (apt-get install openmpi-bin libopenmpi3)")
		}
	}
	bin := opts.Binary
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, errf(ErrArgument, op, "cannot find the gnnrepl binary (os.Executable): %v; set LaunchOptions.Binary", err)
		}
		bin = exe
	}
	logDir := opts.LogDir
	if logDir == "" {
		d, err := os.MkdirTemp("", "gnnrepl-launch-")
		if err != nil {
			return nil, errf(ErrArgument, op, "log folder: %v", err)
		}
		logDir = d
	} else if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, errf(ErrArgument, op, "log folder: %v", err)
	}
	out := opts.Out
	if out == nil {
		out = os.Stdout
	}

	args := []string{"--oversubscribe", "--tag-output"}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	args = append(args, opts.MPIArgs...)
	// Each rank runs under a shell that reports a non-zero exit status on
	// the rank's own stream: mpirun does not always name the rank that
	// failed first (a rank killed by a signal, a race in its report).
	args = append(args, "-np", strconv.Itoa(n), "/bin/sh", "-c", rankWrapper, "sh", bin)
	args = append(args, opts.BinaryArgs...)
	args = append(args, "run", file)
	cmd := exec.Command(mpirun, args...)
	cmd.Env = append(os.Environ(), opts.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	res := &LaunchResult{LogDir: logDir, Value: nanValue()}
	logs := make([]*os.File, n+1) // logs[n]: mpirun's own lines
	for r := 0; r <= n; r++ {
		name := fmt.Sprintf("rank%d.log", r)
		if r == n {
			name = "mpirun.log"
		} else {
			res.Logs = append(res.Logs, filepath.Join(logDir, name))
		}
		f, err := os.Create(filepath.Join(logDir, name))
		if err != nil {
			closeFiles(logs)
			return nil, errf(ErrArgument, op, "log: %v", err)
		}
		logs[r] = f
	}
	defer closeFiles(logs)

	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, errf(ErrArgument, op, "pipe: %v", err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, errf(ErrNoMPI, op, "starting %s: %v", mpirun, err)
	}
	pw.Close()

	// Lines: split by rank, logged, streamed; the last lines kept per rank.
	const keep = 8
	tails := make([][]string, n+1)
	firstFailed := -1 // the first rank whose wrapper reported a failure
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			r, stream, text := n, "", line
			if m := tagLine.FindStringSubmatch(line); m != nil {
				if v, err := strconv.Atoi(m[1]); err == nil && v < n {
					r, stream, text = v, m[2], m[3]
				}
			}
			mu.Lock()
			fmt.Fprintln(logs[r], text)
			tails[r] = append(tails[r], text)
			if len(tails[r]) > keep {
				tails[r] = tails[r][1:]
			}
			if r == 0 && stream == "stdout" {
				res.LastLine = text
			}
			if r < n && firstFailed < 0 && strings.HasPrefix(text, rankExitPrefix) {
				firstFailed = r
			}
			mu.Unlock()
			switch {
			case r == n:
				fmt.Fprintf(out, "[mpirun] %s\n", text)
			case !opts.Quiet || r == 0:
				fmt.Fprintf(out, "[rank %d] %s\n", r, text)
			}
		}
	}()

	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	ctx := runctx.Context()
	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var stopped error
	var werr error
	select {
	case werr = <-waitErr:
	case <-ctx.Done():
		stopped = ctx.Err()
	case <-timeout:
		stopped = context.DeadlineExceeded
	}
	if stopped != nil {
		killGroup(cmd.Process.Pid, waitErr)
	}
	// Read what is still in the pipe (mpirun's failure report comes last)
	// until every writer has closed it; a rank that outlived the launcher
	// and keeps it open is cut off after 2 s.
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		pr.Close()
		<-done
	}
	pr.Close()
	res.Elapsed = time.Since(start)
	res.ExitCode = exitCode(cmd, werr)
	if stopped != nil {
		res.ExitCode = -1
	}
	res.Metric, res.Value = parseMetric(res.LastLine)
	mu.Lock()
	defer mu.Unlock()
	if stopped != nil {
		return res, errf(stopped, op, "the %d-rank job of %s was stopped after %.1fs; every rank was killed; logs in %s",
			n, file, res.Elapsed.Seconds(), logDir)
	}
	if res.ExitCode != 0 {
		rank := -1
		all := strings.Join(tails[n], "\n")
		for _, re := range failedRank {
			if m := re.FindStringSubmatch(all); m != nil {
				rank, _ = strconv.Atoi(m[1])
				break
			}
		}
		if rank < 0 {
			rank = firstFailed
		}
		if rank < 0 {
			for r := 0; r < n && rank < 0; r++ {
				for _, re := range failedRank[1:] {
					if re.MatchString(strings.Join(tails[r], "\n")) {
						rank = r
					}
				}
			}
		}
		if rank >= 0 && rank < n {
			return res, errf(ErrMPI, op, "rank %d of %d failed (exit status %d) running %s; its last lines:\n%s\n(logs in %s)",
				rank, n, res.ExitCode, file, indent(tails[rank]), logDir)
		}
		return res, errf(ErrMPI, op, "the %d-rank job of %s exited with status %d; the launcher's last lines:\n%s\n(logs in %s)",
			n, file, res.ExitCode, indent(tails[n]), logDir)
	}
	return res, nil
}

// killGroup stops the launcher's process group: SIGTERM (mpirun forwards
// it to every rank), then SIGKILL after 3 s if it has not exited.
func killGroup(pid int, waitErr <-chan error) {
	syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-waitErr:
	case <-time.After(3 * time.Second):
		syscall.Kill(-pid, syscall.SIGKILL)
		<-waitErr
	}
	// Ranks that outlived mpirun (none normally) go with the group.
	syscall.Kill(-pid, syscall.SIGKILL)
}

func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState != nil {
		return cmd.ProcessState.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func closeFiles(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

func indent(lines []string) string {
	if len(lines) == 0 {
		return "    (no output)"
	}
	return "    " + strings.Join(lines, "\n    ")
}

// parseMetric splits "name: value" into its name and number.
func parseMetric(line string) (string, float64) {
	i := strings.LastIndex(line, ":")
	if i <= 0 {
		return "", nanValue()
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(line[i+1:]), 64)
	if err != nil {
		return "", nanValue()
	}
	return strings.TrimSpace(line[:i]), v
}

func nanValue() float64 { return math.NaN() }
