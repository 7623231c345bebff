package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"strings"
	"time"
)

// executeRequest is the content of execute_request. Pointers tell an absent
// field from false.
type executeRequest struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"`
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      *bool             `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"`
}

// handleExecute runs one execute_request: execute_input, the cell's
// streamed output, execute_result or error on IOPub, then execute_reply.
//
// Execution counting follows the specification: the counter increases by
// one for each request with store_history (which silent forces off), and a
// request that does not store history reports the current value. When a
// cell fails and stop_on_error is set (the default, as in ipykernel), every
// execute_request that had already arrived is answered with status
// "aborted" without running.
func (k *Kernel) handleExecute(m *Message, seq uint64) {
	started := isoNow()
	var req executeRequest
	if err := json.Unmarshal(m.Content, &req); err != nil {
		k.reply(shellChan, m, "execute_reply", nil, withCount(errorReply("ProtocolError", "invalid execute_request content: "+err.Error(), nil), k.count))
		return
	}
	if seq != 0 && seq <= k.abortUpTo.Load() {
		k.reply(shellChan, m, "execute_reply", replyMetadata(started, k.session, "aborted"), map[string]any{"status": "aborted"})
		return
	}
	storeHistory := !req.Silent
	if req.StoreHistory != nil {
		storeHistory = *req.StoreHistory && !req.Silent
	}
	allowStdin := req.AllowStdin != nil && *req.AllowStdin
	stopOnError := req.StopOnError == nil || *req.StopOnError

	if storeHistory {
		k.count++
	}
	count := k.count
	if !req.Silent {
		k.publish(m, "execute_input", map[string]any{"code": req.Code, "execution_count": count})
	}

	ctx, cancel := context.WithCancelCause(k.ctx)
	defer cancel(errCellDone)
	cio := newCellIO(k, m, ctx, req.Silent, allowStdin)
	cio.count = count
	if !req.Silent {
		k.outTarget.Store(cio)
	}
	k.runMu.Lock()
	k.cancelCell = cancel
	k.runMu.Unlock()
	data, err := k.runCell(ctx, req.Code, cio)
	k.runMu.Lock()
	k.cancelCell = nil
	k.runMu.Unlock()
	if k.syncOutput != nil {
		k.syncOutput()
	}
	cio.finish()

	if err != nil {
		ename, evalue, tb := describeError(ctx, err)
		if !req.Silent {
			k.publish(m, "error", map[string]any{"ename": ename, "evalue": evalue, "traceback": tb})
		}
		if storeHistory {
			k.hist.add(count, req.Code, "")
		}
		if stopOnError {
			k.abortUpTo.Store(k.recvSeq.Load())
		}
		content := withCount(errorReply(ename, evalue, tb), count)
		content["user_expressions"] = map[string]any{}
		content["payload"] = []any{}
		k.reply(shellChan, m, "execute_reply", replyMetadata(started, k.session, "error"), content)
		return
	}
	output := ""
	if data != nil {
		data = jsonSafe(data)
		if s, ok := data["text/plain"].(string); ok {
			output = s
		}
		if !req.Silent {
			k.publish(m, "execute_result", map[string]any{"execution_count": count, "data": data, "metadata": map[string]any{}})
		}
	}
	if storeHistory {
		k.hist.add(count, req.Code, output)
	}
	content := map[string]any{
		"status":           "ok",
		"execution_count":  count,
		"payload":          []any{},
		"user_expressions": k.userExpressions(req.UserExpressions),
	}
	k.reply(shellChan, m, "execute_reply", replyMetadata(started, k.session, "ok"), content)
}

// errCellDone is the cancel cause of a cell context once the cell returned.
var errCellDone = errors.New("kernel: the cell has finished")

// errShutdown is reported to a cell stopped by shutdown.
var errShutdown = errors.New("kernel: shutting down")

func withCount(c map[string]any, count int) map[string]any {
	c["execution_count"] = count
	return c
}

func replyMetadata(started, engine, status string) map[string]any {
	return map[string]any{"started": started, "dependencies_met": true, "engine": engine, "status": status}
}

// runCell calls Session.Execute, turning a panic into an error.
func (k *Kernel) runCell(ctx context.Context, code string, io ExecIO) (data map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, &panicError{value: r, stack: debug.Stack()}
		}
	}()
	return k.sess.Execute(ctx, code, io)
}

// userExpressions evaluates execute_request's user_expressions after a
// successful cell: each name maps to a display-data-like dict or to an
// error dict for that expression alone.
func (k *Kernel) userExpressions(exprs map[string]string) map[string]any {
	out := make(map[string]any, len(exprs))
	for name, expr := range exprs {
		data, err := k.evalExpr(expr)
		if err != nil {
			ename, evalue, tb := describeError(k.ctx, err)
			out[name] = errorReply(ename, evalue, tb)
			continue
		}
		if data == nil {
			data = map[string]any{}
		}
		out[name] = map[string]any{"status": "ok", "data": jsonSafe(data), "metadata": map[string]any{}}
	}
	return out
}

func (k *Kernel) evalExpr(expr string) (data map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, &panicError{value: r, stack: debug.Stack()}
		}
	}()
	ctx, cancel := context.WithCancelCause(k.ctx)
	defer cancel(errCellDone)
	k.runMu.Lock()
	k.cancelCell = cancel
	k.runMu.Unlock()
	defer func() {
		k.runMu.Lock()
		k.cancelCell = nil
		k.runMu.Unlock()
	}()
	if ev, ok := k.sess.(ExprEvaluator); ok {
		return ev.EvalExpr(ctx, expr)
	}
	return k.sess.Execute(ctx, expr, discardIO{})
}

// panicError is a panic recovered from a Session call.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string     { return fmt.Sprintf("panic: %v", e.value) }
func (e *panicError) ErrorName() string { return "Panic" }
func (e *panicError) Traceback() []string {
	lines := []string{e.Error(), ""}
	return append(lines, strings.Split(strings.TrimRight(string(e.stack), "\n"), "\n")...)
}

// describeError turns a cell's error into Jupyter's ename, evalue and
// traceback.
func describeError(ctx context.Context, err error) (ename, evalue string, tb []string) {
	var ce CellError
	switch {
	case errors.As(err, &ce):
		ename, evalue, tb = ce.ErrorName(), ce.Error(), ce.Traceback()
	case errors.Is(err, ErrInterrupted) || errors.Is(context.Cause(ctx), ErrInterrupted) && errors.Is(err, context.Canceled):
		ename, evalue = "KeyboardInterrupt", ErrInterrupted.Error()
	case errors.Is(err, errShutdown) || errors.Is(context.Cause(ctx), errShutdown) && errors.Is(err, context.Canceled):
		ename, evalue = "KernelShutdown", errShutdown.Error()
	default:
		ename, evalue = errorName(err), err.Error()
	}
	if len(tb) == 0 {
		tb = []string{ename + ": " + evalue}
	}
	return ename, evalue, tb
}

// errorName names an error by its dynamic type ("ErrorList" for a
// *scanner.ErrorList), or "Error" for the anonymous types of errors.New and
// fmt.Errorf.
func errorName(err error) string {
	t := reflect.TypeOf(err)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Name() == "" || t.PkgPath() == "errors" || (t.PkgPath() == "fmt" && strings.HasPrefix(t.Name(), "wrapError")) {
		return "Error"
	}
	switch t.Name() {
	case "errorString", "wrapError", "wrapErrors", "joinError":
		return "Error"
	}
	return t.Name()
}

// jsonSafe returns data if it encodes as JSON; otherwise only its string
// entries (a value holding a NaN or a channel must not lose the result).
func jsonSafe(data map[string]any) map[string]any {
	if encodes(data) {
		return data
	}
	out := map[string]any{}
	for k, v := range data {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	if len(out) == 0 {
		out["text/plain"] = "(a value that cannot be encoded as JSON)"
	}
	return out
}

// encodes reports whether v marshals to JSON; a MarshalJSON method that
// panics counts as failure.
func encodes(v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_, err := json.Marshal(v)
	return err == nil
}

// discardIO is the ExecIO of user expressions: output is dropped and input
// is refused.
type discardIO struct{}

func (discardIO) Stdout() io.Writer                                   { return io.Discard }
func (discardIO) Stderr() io.Writer                                   { return io.Discard }
func (discardIO) Display(_, _ map[string]any, _ string, _ bool) error { return nil }
func (discardIO) ClearOutput(bool)                                    {}
func (discardIO) Input(string, bool) (string, error)                  { return "", ErrStdinNotAllowed }
func (discardIO) ExecutionCount() int                                 { return 0 }

// flushEvery is the period of stream flushes while a cell runs.
const flushEvery = 50 * time.Millisecond
