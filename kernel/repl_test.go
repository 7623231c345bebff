package kernel

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/repl"
	"github.com/traefik/yaegi/interp"
)

// startRepl starts a kernel on the real interpreter.
func startRepl(t *testing.T) (*Kernel, *testClient) {
	t.Helper()
	rs, err := NewReplSession(repl.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(t.Name(), "PreludeNotice") {
		rs.notice = "" // tests count the streams of cells; data may be absent
	}
	k, c, _ := startKernel(t, rs, testKey)
	return k, c
}

func TestReplExecute(t *testing.T) {
	_, c := startRepl(t)
	reply, pub := c.execute("1+1", nil)
	if reply["status"] != "ok" || types(pub) != "execute_input execute_result" {
		t.Fatalf("1+1: %v %s", reply, types(pub))
	}
	if d := content(t, pub[1])["data"].(map[string]any); d["text/plain"] != "2" {
		t.Errorf("1+1 = %v", d)
	}
	// Variables persist; output of fmt and of goroutines the cell waits for
	// streams in order.
	c.execute("x := 20", nil)
	_, pub = c.execute(`import "sync"
var wg sync.WaitGroup
wg.Add(1)
go func() { defer wg.Done(); fmt.Println("from goroutine") }()
wg.Wait()
fmt.Println("x is", x)
println("to stderr")
x + 1`, nil)
	var text []string
	for _, m := range pub {
		if m.Header.MsgType == "stream" {
			s := content(t, m)
			text = append(text, s["name"].(string)+":"+s["text"].(string))
		}
	}
	got := strings.Join(text, "")
	if !strings.Contains(got, "stdout:from goroutine\nx is 20\n") || !strings.Contains(got, "stderr:to stderr\n") {
		t.Errorf("streams %q", got)
	}
	if last := content(t, pub[len(pub)-1]); last["data"].(map[string]any)["text/plain"] != "21" {
		t.Errorf("result %v", last)
	}
}

func TestReplErrors(t *testing.T) {
	k, c := startRepl(t)
	cases := []struct{ code, ename, evalue string }{
		{"x := ", "CompileError", "In[1]:1"},
		{"undefinedName + 1", "CompileError", "undefined"},
		{`panic("boom")`, "Panic", "boom"},
		{"var a []int\n_ = a[3]", "Panic", "index out of range"},
		{"make([]byte, 1<<62)", "Panic", "out of range"},
		{":quit", "Quit", "Kernel menu"},
	}
	for _, tc := range cases {
		reply, pub := c.execute(tc.code, nil)
		ev, _ := reply["evalue"].(string)
		if reply["status"] != "error" || reply["ename"] != tc.ename || !strings.Contains(ev, tc.evalue) {
			t.Errorf("%q: %v", tc.code, reply)
			continue
		}
		if tb, _ := reply["traceback"].([]any); len(tb) == 0 {
			t.Errorf("%q: no traceback", tc.code)
		}
		if types(pub) != "execute_input error" {
			t.Errorf("%q: IOPub %s", tc.code, types(pub))
		}
		if reply, _ := c.execute("1", map[string]any{"stop_on_error": false}); reply["status"] != "ok" {
			t.Fatalf("after %q: %v", tc.code, reply)
		}
	}
	_ = k
}

func TestReplInterruptInfiniteLoop(t *testing.T) {
	_, c := startRepl(t)
	c.execute("n := 0", nil)
	// The loop says when it has run an iteration: an interrupt sent before
	// that would stop the cell before its loop (n would stay 0).
	id := c.send(c.shell, "execute_request", map[string]any{"code": "for {\n\tn++\n\tif n == 1 {\n\t\tfmt.Println(\"looping\")\n\t}\n}"})
	c.waitIOPub(id, "stream")
	// The interrupt may still reach a frame yaegi creates later; repeat it
	// until the cell ends.
	for {
		c.reply(c.controlCh, c.send(c.control, "interrupt_request", map[string]any{}))
		select {
		case m := <-c.shellCh:
			if parentID(m) != id {
				continue
			}
			if r := content(t, m); r["ename"] != "KeyboardInterrupt" {
				t.Errorf("reply %v", r)
			}
		default:
			continue
		}
		break
	}
	// The interrupted loop stops at its next instruction, which on a loaded
	// machine can come after the reply: until then the kernel answers a new
	// cell with Busy at once (the documented behaviour), so ask again.
	var reply map[string]any
	var pub []*Message
	for deadline := time.Now().Add(20 * time.Second); ; {
		reply, pub = c.execute("n > 0", nil)
		if reply["ename"] != "Busy" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if reply["status"] != "ok" || content(t, pub[1])["data"].(map[string]any)["text/plain"] != "true" {
		t.Errorf("after interrupt: %v", reply)
	}
}

func TestReplInput(t *testing.T) {
	_, c := startRepl(t)
	id := c.send(c.shell, "execute_request", map[string]any{"code": "var name string\nfmt.Scanln(&name)\n\"hello \" + name", "allow_stdin": true})
	req := c.reply(c.stdinCh, id)
	c.sendHeader(c.stdin, c.header("input_reply"), req.RawHeader, map[string]any{"value": "Ada"})
	if r := content(t, c.reply(c.shellCh, id)); r["status"] != "ok" {
		t.Fatalf("reply %v", r)
	}
	if res := c.waitIOPub(id, "execute_result"); content(t, res)["data"].(map[string]any)["text/plain"] != `"hello Ada"` {
		t.Errorf("result %v", content(t, res))
	}
}

func TestReplCompleteInspectIsComplete(t *testing.T) {
	_, c := startRepl(t)
	c.execute(`import "strings"`, nil)
	// "é" is 2 bytes: cursor positions are code points.
	code := `s := "é"; strings.Rep`
	id := c.send(c.shell, "complete_request", map[string]any{"code": code, "cursor_pos": 21})
	r := content(t, c.reply(c.shellCh, id))
	m, _ := r["matches"].([]any)
	if r["cursor_start"] != 18.0 || r["cursor_end"] != 21.0 || !contains(m, "Repeat") {
		t.Errorf("complete: %v", r)
	}
	id = c.send(c.shell, "inspect_request", map[string]any{"code": "fmt.Println(1)", "cursor_pos": 6, "detail_level": 0})
	r = content(t, c.reply(c.shellCh, id))
	if r["found"] != true || !strings.Contains(r["data"].(map[string]any)["text/plain"].(string), "Println") {
		t.Errorf("inspect: %v", r)
	}
	for code, want := range map[string]string{"for i := 0; i < 3; i++ {": "incomplete", "x := 1": "complete", "x := )": "invalid"} {
		id = c.send(c.shell, "is_complete_request", map[string]any{"code": code})
		if r := content(t, c.reply(c.shellCh, id)); r["status"] != want {
			t.Errorf("is_complete(%q) = %v, want %s", code, r, want)
		}
	}
}

func TestReplUserExpressionsAndCommands(t *testing.T) {
	_, c := startRepl(t)
	reply, _ := c.execute("y := 6 * 7", map[string]any{"user_expressions": map[string]any{"y": "y", "stmt": "z := 1", "bad": "nope"}})
	ue := reply["user_expressions"].(map[string]any)
	if y := ue["y"].(map[string]any); y["status"] != "ok" || y["data"].(map[string]any)["text/plain"] != "42" {
		t.Errorf("y: %v", y)
	}
	if s := ue["stmt"].(map[string]any); s["status"] != "error" || s["ename"] != "SyntaxError" {
		t.Errorf("stmt: %v", s)
	}
	if b := ue["bad"].(map[string]any); b["status"] != "error" {
		t.Errorf("bad: %v", b)
	}
	reply, pub := c.execute(":doc fmt.Println", nil)
	if reply["status"] != "ok" || len(pub) < 2 || !strings.Contains(content(t, pub[1])["text"].(string), "Println") {
		t.Errorf(":doc: %v %s", reply, types(pub))
	}
}

func contains(xs []any, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// TestReplDisplay: the display package publishes through the running cell:
// display_data, then update_display_data for a handle and a progress bar.
func TestReplDisplay(t *testing.T) {
	_, c := startRepl(t)
	reply, pub := c.execute(`import "github.com/gnnrepl/gnnrepl/builtins/display"
display.HTML("<b>bold</b>")
h := display.NewHandle()
h.Markdown("step 1")
h.Markdown("step 2")
bar := display.NewProgress(3, "epoch 1")
bar.Add(3)
bar.Finish()`, nil)
	if reply["status"] != "ok" {
		t.Fatalf("reply %v", reply)
	}
	var kinds []string
	ids := map[string]bool{}
	for _, m := range pub {
		switch m.Header.MsgType {
		case "display_data", "update_display_data":
			kinds = append(kinds, m.Header.MsgType)
			if tr, ok := content(t, m)["transient"].(map[string]any); ok && tr["display_id"] != nil {
				ids[tr["display_id"].(string)] = true
			}
		}
	}
	got := strings.Join(kinds, " ")
	if !strings.HasPrefix(got, "display_data display_data update_display_data display_data") || !strings.Contains(got[40:], "update_display_data") {
		t.Errorf("display messages: %s", got)
	}
	if len(ids) != 2 {
		t.Errorf("display ids %v, want the handle's and the bar's", ids)
	}
	if d := content(t, pub[1])["data"].(map[string]any); d["text/html"] != "<b>bold</b>" {
		t.Errorf("first display %v", d)
	}
}

// TestReplDisplayHandleKeepsItsCell: a Handle shown in one cell and updated
// in a later one sends update_display_data under the cell it first showed
// in, while new display output goes to the running cell.
func TestReplDisplayHandleKeepsItsCell(t *testing.T) {
	_, c := startRepl(t)
	reply, pub := c.execute(`import "github.com/gnnrepl/gnnrepl/builtins/display"
h := display.NewHandle()
h.Markdown("one")`, nil)
	if reply["status"] != "ok" || types(pub) != "execute_input display_data" {
		t.Fatalf("first cell: %v %s", reply, types(pub))
	}
	first := parentID(pub[0])
	reply, pub = c.execute("h.Markdown(\"two\")\ndisplay.Markdown(\"new\")", nil)
	if reply["status"] != "ok" || types(pub) != "execute_input display_data" {
		t.Fatalf("second cell: %v %s", reply, types(pub))
	}
	if d := content(t, pub[1])["data"].(map[string]any); d["text/markdown"] != "new" {
		t.Errorf("second cell's display %v", d)
	}
	up := content(t, c.waitIOPub(first, "update_display_data"))
	if d := up["data"].(map[string]any); d["text/markdown"] != "two" {
		t.Errorf("update %v", up)
	}
}

// TestReplBusyAfterUninterruptibleCall: a cell interrupted inside a compiled
// call that ignores the interrupt keeps running it; until the call returns,
// every later cell is answered at once with a Busy error (not left waiting
// without a reply), and afterwards cells run again.
func TestReplBusyAfterUninterruptibleCall(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	opts := repl.DefaultOptions()
	opts.InterruptGrace = 50 * time.Millisecond
	opts.Symbols = append(opts.Symbols, interp.Exports{
		"example.com/blocker/blocker": {"Wait": reflect.ValueOf(func() { entered <- struct{}{}; <-release })},
	})
	rs, err := NewReplSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	_, c, _ := startKernel(t, rs, testKey)
	c.execute(`import "example.com/blocker"`, nil)
	id := c.send(c.shell, "execute_request", map[string]any{"code": "blocker.Wait()"})
	c.waitIOPub(id, "execute_input")
	// Interrupt only once the compiled call is running: an interrupt
	// that lands before it (while the cell starts) stops the cell cleanly.
	select {
	case <-entered:
	case <-time.After(testTimeout):
		t.Fatal("blocker.Wait was not called")
	}
	for {
		c.reply(c.controlCh, c.send(c.control, "interrupt_request", map[string]any{}))
		select {
		case m := <-c.shellCh:
			if parentID(m) != id {
				continue
			}
			if r := content(t, m); r["ename"] != "KeyboardInterrupt" || !strings.Contains(r["evalue"].(string), "cannot be interrupted") {
				t.Errorf("interrupted reply %v", r)
			}
		case <-time.After(100 * time.Millisecond):
			continue
		}
		break
	}
	for _, code := range []string{"1+1", "x := 2", ":time 1"} {
		reply, _ := c.execute(code, nil)
		if reply["status"] != "error" || reply["ename"] != "Busy" || !strings.Contains(reply["evalue"].(string), "restart the kernel") {
			t.Errorf("%q while busy: %v", code, reply)
		}
	}
	if reply, _ := c.execute(":vars", nil); reply["status"] != "ok" {
		t.Errorf(":vars while busy: %v", reply)
	}
	close(release)
	deadline := time.Now().Add(testTimeout)
	for rs.Repl().Busy() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if reply, pub := c.execute("40+2", nil); reply["status"] != "ok" || content(t, pub[1])["data"].(map[string]any)["text/plain"] != "42" {
		t.Errorf("after the call returned: %v", reply)
	}
}

// TestPreludeNoticeInFirstCell: when the prelude falls back to a synthetic
// Cora, the first cell's output says so (not only the server's log).
func TestPreludeNoticeInFirstCell(t *testing.T) {
	t.Setenv("GNNREPL_DATA", t.TempDir())
	_, c := startRepl(t)
	stderr := func(src string) string {
		_, pub := c.execute(src, nil)
		var s strings.Builder
		for _, m := range pub {
			if m.Header.MsgType == "stream" && content(t, m)["name"] == "stderr" {
				s.WriteString(content(t, m)["text"].(string))
			}
		}
		return s.String()
	}
	if got := stderr("1+1"); !strings.Contains(got, "synthetic graph") {
		t.Errorf("first cell's stderr %q lacks the prelude's notice", got)
	}
	if got := stderr("2+2"); got != "" {
		t.Errorf("second cell's stderr %q", got)
	}
}

// TestReplGoroutines: a goroutine's panic fails the cell that runs, with
// the go statement's position; interrupt_request while the kernel is idle
// stops the goroutines cells left running (at their next step).
func TestReplGoroutines(t *testing.T) {
	_, c := startRepl(t)
	reply, _ := c.execute("ch := make(chan int)\ngo func() {\n\tpanic(\"in goroutine\")\n}()\n<-ch", nil)
	if ev, _ := reply["evalue"].(string); reply["ename"] != "Panic" || !strings.Contains(ev, "panic in the goroutine started at In[1]:2:1: in goroutine") {
		t.Errorf("goroutine panic: %v", reply)
	}
	if tb, _ := reply["traceback"].([]any); len(tb) == 0 || !strings.Contains(strings.Join(strings.Fields(fmtAny(tb)), " "), "In[1]:3:") {
		t.Errorf("traceback %v does not name the goroutine's line", reply["traceback"])
	}
	c.execute("import \"sync/atomic\"\nvar n atomic.Int64\ngo func() {\n\tfor {\n\t\tn.Add(1)\n\t}\n}()", nil)
	c.reply(c.controlCh, c.send(c.control, "interrupt_request", map[string]any{}))
	start := time.Now()
	for {
		_, pub := c.execute("a := n.Load()\ntime.Sleep(50 * time.Millisecond)\nn.Load() - a", nil)
		if len(pub) > 1 && content(t, pub[1])["data"].(map[string]any)["text/plain"] == "0" {
			break
		}
		if time.Since(start) > testTimeout { // a bound for a busy machine, not a speed goal
			t.Fatalf("the goroutine still runs %v after interrupt_request", testTimeout)
		}
	}
}

func fmtAny(v []any) string {
	var b strings.Builder
	for _, x := range v {
		s, _ := x.(string)
		b.WriteString(s)
		b.WriteString("\n")
	}
	return b.String()
}

// TestReplInterruptCountsOnce: one interrupt_request counts one interrupt
// (runctx.Interrupts), while a cell runs and while the kernel is idle: the
// kernel both interrupts the session and cancels the cell's context.
func TestReplInterruptCountsOnce(t *testing.T) {
	_, c := startRepl(t)
	// The count is read through the session (front ends import only repl).
	interrupts := func() uint64 {
		t.Helper()
		reply, pub := c.execute("runctx.Interrupts()", nil)
		if reply["status"] != "ok" || len(pub) < 2 {
			t.Fatalf("runctx.Interrupts(): %v %s", reply, types(pub))
		}
		d, _ := content(t, pub[1])["data"].(map[string]any)
		txt, _ := d["text/plain"].(string)
		n, err := strconv.ParseUint(txt, 10, 64)
		if err != nil {
			t.Fatalf("runctx.Interrupts() = %q", txt)
		}
		return n
	}
	c.execute("n := 0", nil)
	before := interrupts()
	id := c.send(c.shell, "execute_request", map[string]any{"code": "for {\n\tn++\n\tif n == 1 {\n\t\tfmt.Println(\"looping\")\n\t}\n}"})
	c.waitIOPub(id, "stream")
	c.reply(c.controlCh, c.send(c.control, "interrupt_request", map[string]any{}))
	if r := content(t, c.reply(c.shellCh, id)); r["ename"] != "KeyboardInterrupt" {
		t.Fatalf("reply %v", r)
	}
	c.iopubUntilIdle(id)
	after := interrupts()
	if got := after - before; got != 1 {
		t.Errorf("one interrupt of a running cell counted %d", got)
	}
	c.reply(c.controlCh, c.send(c.control, "interrupt_request", map[string]any{}))
	if got := interrupts() - after; got != 1 {
		t.Errorf("one interrupt of the idle kernel counted %d", got)
	}
}

// TestReplMemoryLimit: a cell that allocates beyond the host memory budget
// (set small by the cell before it) gets the out-of-memory error naming
// the request and the budget, and the session keeps working with its
// variables.
func TestReplMemoryLimit(t *testing.T) {
	_, c := startRepl(t)
	// Through the session: a front end's tests import no engine package.
	t.Cleanup(func() { c.execute("_ = tensor.SetMemoryLimit(0)", nil) })
	if r, _ := c.execute(`kept := tensor.Ones(4)
_ = tensor.SetMemoryLimit(tensor.MemoryAllocated("cpu") + 16<<20)`, nil); r["status"] != "ok" {
		t.Fatalf("setting the budget: %v", r)
	}
	reply, _ := c.execute("big := tensor.Zeros(8192, 4096)\nbig.Sum()", nil)
	ev, _ := reply["evalue"].(string)
	if reply["status"] != "error" || !strings.Contains(ev, "CPU out of memory: tried to allocate 128.0 MiB (float32 [8192 4096])") ||
		!strings.Contains(ev, "budget") {
		t.Fatalf("allocation beyond the budget: %v", reply)
	}
	t.Logf("%s: %s", reply["ename"], ev)
	reply, pub := c.execute("kept.Sum().Item()", nil)
	if reply["status"] != "ok" || content(t, pub[len(pub)-1])["data"].(map[string]any)["text/plain"] != "4" {
		t.Fatalf("after the refused allocation: %v", reply)
	}
	if r, _ := c.execute("_ = tensor.SetMemoryLimit(0)\ntensor.Zeros(8192, 4096).Sum().Item()", nil); r["status"] != "ok" {
		t.Fatalf("with the default budget: %v", r)
	}
}
