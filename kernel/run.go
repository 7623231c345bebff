package kernel

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/gnnrepl/gnnrepl/repl"
)

// Run serves the kernel described by connectionFile until a
// shutdown_request (or SIGTERM) arrives, then returns nil.
//
// The session is created by newSession on a goroutine of its own while the
// kernel already answers kernel_info_request, so front ends see the kernel
// ready at once; requests that need the session wait for it, and if
// newSession fails every cell reports that error. SIGINT (a terminal's
// Ctrl-C reaching Jupyter's process group) interrupts the running cell
// instead of killing the kernel. A kernel started by jupyter_client
// (JPY_PARENT_PID set) shuts down when its parent process dies.
//
// With opts.CaptureStdio, file descriptors 1 and 2 are redirected so that
// output written by compiled code (fmt.Println in a library, C code loaded
// with purego) reaches the notebook as stream messages of the running cell;
// the kernel's own log and Go's crash output go to the original stderr.
func Run(connectionFile string, newSession func() (Session, error), opts Options) error {
	info, err := ReadConnectionFile(connectionFile)
	if err != nil {
		return err
	}
	ls := newLazySession(newSession)
	var fwd forwarder
	var syncOutput func()
	if opts.CaptureStdio {
		capture, err := captureStdio(fwd.write)
		if err != nil {
			// Not fatal: the kernel still works; compiled code's output
			// then goes to the server's terminal.
			fmt.Fprintf(os.Stderr, "[gnnrepl kernel] cannot capture stdout/stderr: %v\n", err)
		} else {
			defer capture.restore()
			if opts.Log == nil {
				opts.Log = capture.savedErr
			}
			debug.SetCrashOutput(capture.savedErr, debug.CrashOptions{})
			syncOutput = func() { capture.sync(time.Second) }
			// The crash watcher starts once the session is ready (no cell
			// runs before), so that it takes nothing from the start-up.
			watchStop := make(chan struct{})
			var watchWG sync.WaitGroup
			watchWG.Add(1)
			go func() {
				defer watchWG.Done()
				select {
				case <-ls.ready:
				case <-watchStop:
					return
				}
				if err := capture.startWatcher(); err != nil {
					fmt.Fprintf(capture.savedErr, "[gnnrepl kernel] %v; a fatal error's first line will be missing from this log\n", err)
				}
			}()
			defer func() { close(watchStop); watchWG.Wait() }()
		}
	}
	k, err := New(info, ls, opts)
	if err != nil {
		return err
	}
	k.syncOutput = syncOutput
	fwd.set(k)
	defer fwd.set(nil)

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	stopSig := make(chan struct{})
	var sigWG sync.WaitGroup
	sigWG.Add(1)
	go func() {
		defer sigWG.Done()
		for {
			select {
			case <-stopSig:
				return
			case s := <-sigs:
				if s == os.Interrupt {
					k.interrupt()
					continue
				}
				k.logf("received %v; shutting down", s)
				k.stop()
			}
		}
	}()
	if os.Getenv("JPY_PARENT_PID") != "" {
		sigWG.Add(1)
		go func() {
			defer sigWG.Done()
			watchParent(k, stopSig)
		}()
	}
	err = k.Serve()
	close(stopSig)
	sigWG.Wait()
	return err
}

// parentPoll is how often a kernel started by jupyter_client checks that
// its parent is still alive.
const parentPoll = time.Second

// watchParent shuts the kernel down when the process that started it (the
// Jupyter server or client, which sets JPY_PARENT_PID) has died, as
// ipykernel's parent poller does, so that a crashed front end leaves no
// orphan kernel behind. The parent is gone when this process has been
// re-parented (to init or a subreaper).
func watchParent(k *Kernel, stop <-chan struct{}) {
	ppid := os.Getppid()
	if ppid <= 1 {
		return
	}
	t := time.NewTicker(parentPoll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if os.Getppid() != ppid {
				k.logf("parent process %d has exited; shutting down", ppid)
				k.stop()
				return
			}
		}
	}
}

// forwarder routes captured process output to the kernel's current cell.
type forwarder struct {
	mu sync.Mutex
	k  *Kernel
}

func (f *forwarder) set(k *Kernel) {
	f.mu.Lock()
	f.k = k
	f.mu.Unlock()
}

// write reports whether the kernel took the output.
func (f *forwarder) write(name string, p []byte) bool {
	f.mu.Lock()
	k := f.k
	f.mu.Unlock()
	return k != nil && k.forward(name, p)
}

// lazySession creates the real session in the background; every method
// waits for it.
type lazySession struct {
	ready chan struct{}
	s     Session
	err   error
}

func newLazySession(newSession func() (Session, error)) *lazySession {
	l := &lazySession{ready: make(chan struct{})}
	go func() {
		defer close(l.ready)
		defer func() {
			if r := recover(); r != nil {
				l.err = fmt.Errorf("kernel: creating the session panicked: %v\n%s", r, debug.Stack())
			}
		}()
		l.s, l.err = newSession()
		if l.err == nil && l.s == nil {
			l.err = errors.New("kernel: newSession returned a nil Session")
		}
	}()
	return l
}

func (l *lazySession) get(ctx context.Context) (Session, error) {
	select {
	case <-l.ready:
		return l.s, l.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

func (l *lazySession) Execute(ctx context.Context, code string, io ExecIO) (map[string]any, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.Execute(ctx, code, io)
}

func (l *lazySession) EvalExpr(ctx context.Context, expr string) (map[string]any, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	if ev, ok := s.(ExprEvaluator); ok {
		return ev.EvalExpr(ctx, expr)
	}
	return s.Execute(ctx, expr, discardIO{})
}

func (l *lazySession) Complete(code string, cursor int) ([]string, int, int) {
	s, err := l.get(context.Background())
	if err != nil {
		return nil, cursor, cursor
	}
	return s.Complete(code, cursor)
}

func (l *lazySession) Inspect(code string, cursor, detail int) (string, bool) {
	s, err := l.get(context.Background())
	if err != nil {
		return "", false
	}
	return s.Inspect(code, cursor, detail)
}

// Interrupt forwards to the session when it is ready and implements
// Interrupter (no cell can run before then).
func (l *lazySession) Interrupt() {
	select {
	case <-l.ready:
		if i, ok := l.s.(Interrupter); ok && l.err == nil {
			i.Interrupt()
		}
	default:
	}
}

func (l *lazySession) IsComplete(code string) (string, string) {
	s, err := l.get(context.Background())
	if err != nil {
		return "unknown", ""
	}
	return s.IsComplete(code)
}

// Main runs the `gnnrepl kernel` subcommand with gnnrepl's session
// (NewReplSession(repl.DefaultOptions())); args are the arguments after
// "kernel". It returns the process exit status (see Command.Run).
func Main(args []string) int {
	return Command{NewSession: func() (Session, error) {
		return NewReplSession(repl.DefaultOptions())
	}}.Run(args)
}

// Command is the `gnnrepl kernel` subcommand:
//
//	gnnrepl kernel -f CONNECTION_FILE
//	gnnrepl kernel install [--user | --prefix DIR] [--name NAME] [--display-name TEXT]
type Command struct {
	// NewSession creates the session a kernel drives.
	NewSession func() (Session, error)
	// Stdout and Stderr receive messages and usage; nil means os.Stdout
	// and os.Stderr.
	Stdout, Stderr io.Writer
	// Options are passed to Run; CaptureStdio is always set.
	Options Options
}

const usage = `usage:
  gnnrepl kernel -f CONNECTION_FILE [--max-message-size BYTES]
      serve a Jupyter kernel (Jupyter runs this from the kernelspec); a peer
      sending a message larger than BYTES (default 1 GiB) is disconnected
  gnnrepl kernel install [--user | --prefix DIR] [--name NAME] [--display-name TEXT]
      write the kernelspec so that Jupyter lists "Go (gnnrepl)"
`

// Run executes the subcommand with args (the arguments after "kernel") and
// returns the process exit status: 0 on success, 1 on failure, 2 on a usage
// error.
func (c Command) Run(args []string) int {
	stdout, stderr := c.Stdout, c.Stderr
	if stdout == nil {
		stdout = os.Stdout
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	if len(args) > 0 && args[0] == "install" {
		return c.install(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("gnnrepl kernel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	var file string
	fs.StringVar(&file, "f", "", "Jupyter connection file")
	fs.StringVar(&file, "connection-file", "", "Jupyter connection file")
	maxMsg := fs.Int64("max-message-size", 0, "largest message in `BYTES` a peer may send (default 1 GiB)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if file == "" || fs.NArg() != 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if c.NewSession == nil {
		fmt.Fprintln(stderr, "gnnrepl kernel: no session factory")
		return 1
	}
	if *maxMsg < 0 {
		fmt.Fprintf(stderr, "gnnrepl kernel: --max-message-size must be positive, got %d\n", *maxMsg)
		return 2
	}
	opts := c.Options
	if *maxMsg > 0 {
		opts.MaxMessageSize = *maxMsg
	}
	opts.CaptureStdio = true
	if err := Run(file, c.NewSession, opts); err != nil {
		fmt.Fprintf(stderr, "gnnrepl kernel: %v\n", err)
		return 1
	}
	return 0
}

func (c Command) install(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gnnrepl kernel install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o InstallOptions
	fs.BoolVar(&o.User, "user", false, "install for the current user (~/.local/share/jupyter/kernels)")
	fs.StringVar(&o.Prefix, "prefix", "", "install under `DIR`/share/jupyter/kernels")
	fs.StringVar(&o.Name, "name", "gnnrepl", "kernelspec `NAME`")
	fs.StringVar(&o.DisplayName, "display-name", "Go (gnnrepl)", "name shown in notebook menus")
	fs.StringVar(&o.Executable, "executable", "", "gnnrepl binary Jupyter starts (default: this one)")
	fs.StringVar(&o.DataDir, "data", os.Getenv("GNNREPL_DATA"), "data `DIR` the kernel's dataset loaders read, recorded in kernel.json (default: gnnrepl --data or $GNNREPL_DATA)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "gnnrepl kernel install: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	dir, err := Install(o)
	if err != nil {
		fmt.Fprintf(stderr, "gnnrepl %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Installed kernelspec %s in %s\n", o.Name, dir)
	return 0
}
