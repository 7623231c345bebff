package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/chzyer/readline"
	"golang.org/x/term"
)

// Prompts of the terminal shell.
const (
	Prompt             = "gnn> "
	ContinuationPrompt = "...> "
)

// ShellOptions configure RunShell. Zero values take the defaults.
type ShellOptions struct {
	// In, Out and Err are the shell's streams (default the process's). The
	// shell is interactive (readline, prompts, history, completion) when In
	// is a terminal; otherwise it reads In as a stream of lines (RunLines).
	// When Out or Err is a LineEndWriter that is also the session's Stdout
	// or Stderr, the interactive shell ends a line that a cell's output
	// left open (fmt.Print("x")) before it draws the next prompt.
	In       *os.File
	Out, Err io.Writer
	// HistoryFile keeps the input history across sessions (default
	// HistoryPath()). "-" disables it.
	HistoryFile string
	// Banner is printed once when the interactive shell starts.
	Banner string
}

// HistoryPath returns where the shell keeps its history: $GNNREPL_HISTORY,
// or gnnrepl/history under os.UserConfigDir, or "" when neither is known.
func HistoryPath() string {
	if p := os.Getenv("GNNREPL_HISTORY"); p != "" {
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "gnnrepl", "history")
}

// RunShell runs the terminal shell on s until :quit or Ctrl-D (nil
// error). Input accumulates while IsComplete says it is incomplete (a
// continuation prompt is shown); Ctrl-C during an evaluation interrupts it,
// and at the prompt clears the input. Errors are printed and the shell goes
// on. When In is not a terminal, RunShell is RunLines: it stops at the first
// error and returns it.
func RunShell(s *Session, opts ShellOptions) error {
	if opts.In == nil {
		opts.In = os.Stdin
	}
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.Err == nil {
		opts.Err = os.Stderr
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)

	if !term.IsTerminal(int(opts.In.Fd())) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-sig:
				cancel()
			case <-ctx.Done():
			}
		}()
		return RunLines(ctx, s, opts.In, opts.Out, opts.Err)
	}

	hist := opts.HistoryFile
	if hist == "" {
		hist = HistoryPath()
	}
	if hist == "-" {
		hist = ""
	}
	if hist != "" {
		if err := os.MkdirAll(filepath.Dir(hist), 0o755); err != nil {
			fmt.Fprintf(opts.Err, "history disabled: %v\n", err)
			hist = ""
		}
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:            Prompt,
		HistoryFile:       hist,
		HistorySearchFold: true,
		AutoComplete:      completer{s},
		InterruptPrompt:   "^C",
		EOFPrompt:         "",
		Stdin:             opts.In,
		Stdout:            opts.Out,
		Stderr:            opts.Err,
	})
	if err != nil {
		return fmt.Errorf("repl: starting the line editor: %w", err)
	}
	defer rl.Close()
	if opts.Banner != "" {
		fmt.Fprintln(opts.Out, opts.Banner)
	}

	// One goroutine takes every SIGINT (Ctrl-C while the terminal is not
	// in the line editor's raw mode: while a cell runs, and in the gap
	// after it before the prompt reads again): it cancels the running
	// cell, if any, and always stops the goroutines cells left running,
	// so that a Ctrl-C typed just as a cell ends is not lost.
	var curMu sync.Mutex
	var cur context.CancelFunc
	stopSig := make(chan struct{})
	defer close(stopSig)
	go func() {
		for {
			select {
			case <-sig:
				// Interrupt first: it counts this Ctrl-C once
				// (runctx.Interrupts); the cancel after it does not.
				s.Interrupt()
				curMu.Lock()
				if cur != nil {
					cur()
				}
				curMu.Unlock()
			case <-stopSig:
				return
			}
		}
	}()

	var lines []string
	for {
		if len(lines) == 0 {
			rl.SetPrompt(Prompt)
		} else {
			rl.SetPrompt(ContinuationPrompt)
		}
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			// Ctrl-C at the prompt also stops the goroutines earlier
			// cells left running.
			s.Interrupt()
			lines = nil
			continue
		case errors.Is(err, io.EOF):
			if len(lines) > 0 {
				lines = nil
				fmt.Fprintln(opts.Out)
				continue
			}
			return nil
		case err != nil:
			return fmt.Errorf("repl: reading input: %w", err)
		}
		lines = append(lines, line)
		src := strings.Join(lines, "\n")
		if status, _ := IsComplete(src); status == Incomplete {
			continue
		}
		lines = nil
		if strings.TrimSpace(src) == "" {
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		curMu.Lock()
		cur = cancel
		curMu.Unlock()
		res, err := evalOrCommand(ctx, s, src, opts.Out)
		curMu.Lock()
		cur = nil
		curMu.Unlock()
		cancel()
		// Output without a final newline would sit where the next
		// prompt is drawn, and readline redraws over it.
		endLines(opts.Out, opts.Err)
		if errors.Is(err, ErrQuit) {
			return nil
		}
		if err != nil {
			PrintError(opts.Err, err)
			continue
		}
		if res.Text != "" {
			fmt.Fprintln(opts.Out, res.Text)
		}
	}
}

func evalOrCommand(ctx context.Context, s *Session, src string, out io.Writer) (Result, error) {
	if IsCommand(src) {
		return s.RunCommand(ctx, src, out)
	}
	return s.Eval(ctx, src)
}

// PrintError writes err as the shell shows it: a compile error with its
// position, a panic with the interpreted stack, "interrupted".
func PrintError(w io.Writer, err error) {
	var ce *CompileError
	if errors.As(err, &ce) {
		fmt.Fprintln(w, ce.Error())
		for _, m := range ce.More {
			fmt.Fprintln(w, "\t"+m)
		}
		return
	}
	fmt.Fprintln(w, err.Error())
}

// RunLines evaluates the lines read from in as the shell would, without
// prompts: input accumulates until IsComplete, :commands run, the values of
// final expressions are printed to out. It stops at the first error, which
// it prints to errOut and returns; it returns nil at the end of in or at
// :quit. Cancelling ctx interrupts the running evaluation and stops.
//
// Each cell is named "stdin" in errors, with the line numbers of the stream.
func RunLines(ctx context.Context, s *Session, in io.Reader, out, errOut io.Writer) error {
	r := bufio.NewReader(in)
	var lines []string
	next := 1 // the stream's line number of lines[0]
	for {
		line, readErr := r.ReadString('\n')
		if readErr != nil && readErr != io.EOF {
			return fmt.Errorf("repl: reading input: %w", readErr)
		}
		if line != "" || readErr == nil {
			lines = append(lines, strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"))
		}
		src := strings.Join(lines, "\n")
		if status, _ := IsComplete(src); status == Incomplete && readErr == nil {
			continue
		}
		first := next
		next += len(lines)
		lines = nil
		if strings.TrimSpace(src) != "" {
			var res Result
			var err error
			if IsCommand(src) {
				res, err = s.RunCommand(ctx, src, out)
			} else {
				// Blank lines before the cell put its positions on the
				// stream's lines.
				res, err = s.EvalSource(ctx, "stdin", strings.Repeat("\n", first-1)+src)
			}
			if errors.Is(err, ErrQuit) {
				return nil
			}
			if err != nil {
				PrintError(errOut, err)
				return err
			}
			if res.Text != "" {
				fmt.Fprintln(out, res.Text)
			}
		}
		if readErr == io.EOF {
			return nil
		}
	}
}

// completer adapts Session.Complete to readline: it completes the word
// before the cursor on the current line.
type completer struct{ s *Session }

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	src := string(line)
	cursor := len(string(line[:pos]))
	cands, start, _ := c.s.Complete(src, cursor)
	typed := src[start:cursor]
	var out [][]rune
	for _, cand := range cands {
		if strings.HasPrefix(cand, typed) {
			out = append(out, []rune(cand[len(typed):]))
		}
	}
	return out, utf8.RuneCountInString(typed)
}
