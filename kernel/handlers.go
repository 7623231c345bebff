package kernel

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cursorRequest is the content of complete_request and inspect_request.
type cursorRequest struct {
	Code        string `json:"code"`
	CursorPos   *int   `json:"cursor_pos"`
	DetailLevel int    `json:"detail_level"`
}

// decodeCursor decodes content and converts cursor_pos to a byte offset in
// code. Since protocol 5.2 cursor_pos counts Unicode code points; a request
// whose header announces an older version counts UTF-16 code units, as
// front ends of that time did. A missing cursor_pos means the end of code.
func decodeCursor(m *Message) (req cursorRequest, cursor int, err error) {
	if err = json.Unmarshal(m.Content, &req); err != nil {
		return req, 0, err
	}
	if req.CursorPos == nil {
		return req, len(req.Code), nil
	}
	if olderThan52(m.Header.Version) {
		return req, utf16ToByte(req.Code, *req.CursorPos), nil
	}
	return req, runeToByte(req.Code, *req.CursorPos), nil
}

// olderThan52 reports whether a protocol version string is below 5.2.
func olderThan52(v string) bool {
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return false
	}
	return ma < 5 || ma == 5 && mi < 2
}

// runeToByte converts a position counted in code points to a byte offset,
// clamped to [0, len(s)].
func runeToByte(s string, pos int) int {
	if pos <= 0 {
		return 0
	}
	n := 0
	for i := range s {
		if n == pos {
			return i
		}
		n++
	}
	return len(s)
}

// utf16ToByte converts a position counted in UTF-16 code units to a byte
// offset, clamped to [0, len(s)]. A position inside a surrogate pair maps to
// the start of that character.
func utf16ToByte(s string, pos int) int {
	if pos <= 0 {
		return 0
	}
	n := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > pos {
			return i
		}
		n += w
	}
	return len(s)
}

// byteToRune converts a byte offset to a position counted in code points;
// an offset inside a character counts as that character's start.
func byteToRune(s string, off int) int {
	if off <= 0 {
		return 0
	}
	if off > len(s) {
		off = len(s)
	}
	for off > 0 && off < len(s) && !utf8.RuneStart(s[off]) {
		off--
	}
	return utf8.RuneCountInString(s[:off])
}

// byteToUTF16 converts a byte offset to UTF-16 code units.
func byteToUTF16(s string, off int) int {
	if off > len(s) {
		off = len(s)
	}
	n := 0
	for i, r := range s {
		if i >= off {
			break
		}
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// fromByte converts a byte offset back to the cursor unit of request m.
func fromByte(m *Message, code string, off int) int {
	if olderThan52(m.Header.Version) {
		return byteToUTF16(code, off)
	}
	return byteToRune(code, off)
}

// sessionCall runs f, turning a panic into an error reply sent by the
// caller.
func sessionCall(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: r, stack: debug.Stack()}
		}
	}()
	f()
	return nil
}

func (k *Kernel) handleComplete(c channel, m *Message) {
	req, cursor, err := decodeCursor(m)
	if err != nil {
		k.reply(c, m, "complete_reply", nil, errorReply("ProtocolError", "invalid complete_request content: "+err.Error(), nil))
		return
	}
	var matches []string
	var start, end int
	if err := sessionCall(func() { matches, start, end = k.sess.Complete(req.Code, cursor) }); err != nil {
		pe := err.(*panicError)
		k.reply(c, m, "complete_reply", nil, errorReply("Panic", pe.Error(), pe.Traceback()))
		return
	}
	if matches == nil {
		matches = []string{}
	}
	start = min(max(start, 0), len(req.Code))
	end = min(max(end, start), len(req.Code))
	k.reply(c, m, "complete_reply", nil, map[string]any{
		"status":       "ok",
		"matches":      matches,
		"cursor_start": fromByte(m, req.Code, start),
		"cursor_end":   fromByte(m, req.Code, end),
		"metadata":     map[string]any{},
	})
}

func (k *Kernel) handleInspect(c channel, m *Message) {
	req, cursor, err := decodeCursor(m)
	if err != nil {
		k.reply(c, m, "inspect_reply", nil, errorReply("ProtocolError", "invalid inspect_request content: "+err.Error(), nil))
		return
	}
	var text string
	var found bool
	if err := sessionCall(func() { text, found = k.sess.Inspect(req.Code, cursor, req.DetailLevel) }); err != nil {
		pe := err.(*panicError)
		k.reply(c, m, "inspect_reply", nil, errorReply("Panic", pe.Error(), pe.Traceback()))
		return
	}
	data := map[string]any{}
	if found {
		data["text/plain"] = text
	}
	k.reply(c, m, "inspect_reply", nil, map[string]any{"status": "ok", "found": found, "data": data, "metadata": map[string]any{}})
}

func (k *Kernel) handleIsComplete(c channel, m *Message) {
	var req struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(m.Content, &req); err != nil {
		k.reply(c, m, "is_complete_reply", nil, errorReply("ProtocolError", "invalid is_complete_request content: "+err.Error(), nil))
		return
	}
	var status, indent string
	if err := sessionCall(func() { status, indent = k.sess.IsComplete(req.Code) }); err != nil {
		k.logf("is_complete: %v", err)
		status = "unknown"
	}
	reply := map[string]any{"status": status}
	switch status {
	case "incomplete":
		reply["indent"] = indent
	case "complete", "invalid", "unknown":
	default:
		reply["status"] = "unknown"
	}
	k.reply(c, m, "is_complete_reply", nil, reply)
}

// historyRequest is the content of history_request.
type historyRequest struct {
	Output         bool   `json:"output"`
	Raw            bool   `json:"raw"`
	HistAccessType string `json:"hist_access_type"`
	Session        int    `json:"session"`
	Start          int    `json:"start"`
	Stop           int    `json:"stop"`
	N              *int   `json:"n"`
	Pattern        string `json:"pattern"`
	Unique         bool   `json:"unique"`
}

func (k *Kernel) handleHistory(c channel, m *Message) {
	var req historyRequest
	if err := json.Unmarshal(m.Content, &req); err != nil {
		k.reply(c, m, "history_reply", nil, errorReply("ProtocolError", "invalid history_request content: "+err.Error(), nil))
		return
	}
	n := 10
	if req.N != nil {
		n = *req.N
	}
	var entries []histEntry
	switch req.HistAccessType {
	case "tail":
		entries = k.hist.tail(n)
	case "range":
		entries = k.hist.rangeOf(req.Session, req.Start, req.Stop)
	case "search":
		if req.N == nil {
			n = 0
		}
		pattern := req.Pattern
		if pattern == "" {
			pattern = "*"
		}
		entries = k.hist.search(pattern, n, req.Unique)
	default:
		k.reply(c, m, "history_reply", nil, errorReply("ValueError", fmt.Sprintf("hist_access_type %q is not one of tail, range, search", req.HistAccessType), nil))
		return
	}
	k.reply(c, m, "history_reply", nil, map[string]any{"status": "ok", "history": historyJSON(entries, req.Output)})
}
