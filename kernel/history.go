package kernel

import (
	"sync"
	"unicode/utf8"
)

// historySession is the session number of the running kernel's history.
// History lives in memory for one kernel run, so there is exactly one
// session; requests for others get an empty list.
const historySession = 1

// history is the input (and text/plain output) of every cell run with
// store_history, numbered by execution count, as IPython's history manager
// keeps it. It is safe for concurrent use.
type history struct {
	mu      sync.Mutex
	entries []histEntry
}

type histEntry struct {
	line   int
	input  string
	output string // text/plain of execute_result, "" for none
}

func (h *history) add(line int, input, output string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = append(h.entries, histEntry{line: line, input: input, output: output})
}

func (h *history) snapshot() []histEntry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]histEntry(nil), h.entries...)
}

// tail returns the last n entries (none for n <= 0).
func (h *history) tail(n int) []histEntry {
	e := h.snapshot()
	if n <= 0 {
		return nil
	}
	if n < len(e) {
		e = e[len(e)-n:]
	}
	return e
}

// rangeOf returns the entries of session with start <= line < stop, with
// IPython's conventions: session 0 (or historySession) is the current
// session and negative sessions count back from it; stop <= 0 means "to
// the end"; a negative start counts back from the last line.
func (h *history) rangeOf(session, start, stop int) []histEntry {
	if session <= 0 {
		session += historySession
	}
	if session != historySession {
		return nil
	}
	e := h.snapshot()
	last := 0
	if len(e) > 0 {
		last = e[len(e)-1].line
	}
	if start < 0 {
		start += last + 1
	}
	if stop <= 0 {
		stop = last + 1
	}
	var out []histEntry
	for _, x := range e {
		if x.line >= start && x.line < stop {
			out = append(out, x)
		}
	}
	return out
}

// search returns the entries whose input matches the glob pattern (* any
// run of characters, ? one character, [...] a class, as SQLite's GLOB that
// IPython uses: case-sensitive, whole input). With unique only the latest
// of equal inputs is kept. n > 0 keeps the last n matches.
func (h *history) search(pattern string, n int, unique bool) []histEntry {
	e := h.snapshot()
	var out []histEntry
	seen := map[string]bool{}
	for i := len(e) - 1; i >= 0; i-- {
		x := e[i]
		if !globMatch(pattern, x.input) {
			continue
		}
		if unique {
			if seen[x.input] {
				continue
			}
			seen[x.input] = true
		}
		out = append(out, x)
		if n > 0 && len(out) == n {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// historyJSON renders entries as history_reply wants them:
// [session, line, input] or, with output, [session, line, [input, output]]
// where output is null for a cell without a result.
func historyJSON(entries []histEntry, output bool) []any {
	out := make([]any, 0, len(entries))
	for _, x := range entries {
		if output {
			var o any
			if x.output != "" {
				o = x.output
			}
			out = append(out, []any{historySession, x.line, []any{x.input, o}})
		} else {
			out = append(out, []any{historySession, x.line, x.input})
		}
	}
	return out
}

// globMatch reports whether s matches the glob pattern p (see search).
// Malformed classes match nothing.
func globMatch(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			if len(p) == 0 {
				return true
			}
			for i := 0; i <= len(s); {
				if globMatch(p, s[i:]) {
					return true
				}
				if i == len(s) {
					break
				}
				_, w := utf8.DecodeRuneInString(s[i:])
				i += w
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			_, w := utf8.DecodeRuneInString(s)
			s, p = s[w:], p[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			r, w := utf8.DecodeRuneInString(s)
			ok, rest, valid := matchClass(p[1:], r)
			if !valid || !ok {
				return false
			}
			s, p = s[w:], rest
		default:
			pr, pw := utf8.DecodeRuneInString(p)
			sr, sw := utf8.DecodeRuneInString(s)
			if len(s) == 0 || pr != sr {
				return false
			}
			s, p = s[sw:], p[pw:]
		}
	}
	return len(s) == 0
}

// matchClass matches r against the class body p (after '['), returning the
// pattern after ']'. A leading '^' negates; a ']' first is literal; a-z is
// a range.
func matchClass(p string, r rune) (matched bool, rest string, valid bool) {
	negate := false
	if len(p) > 0 && p[0] == '^' {
		negate, p = true, p[1:]
	}
	first := true
	for len(p) > 0 {
		if p[0] == ']' && !first {
			return matched != negate, p[1:], true
		}
		first = false
		lo, w := utf8.DecodeRuneInString(p)
		p = p[w:]
		hi := lo
		if len(p) >= 2 && p[0] == '-' && p[1] != ']' {
			hi, w = utf8.DecodeRuneInString(p[1:])
			p = p[1+w:]
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
	return false, "", false
}
