package kernel

import (
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

const testKey = "4b0c3f1e-2a5d-4c6b-9e8f-0123456789ab"

func TestKernelInfoOnShellAndControl(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	for _, ch := range []struct {
		s  zmq4.Socket
		in chan *Message
	}{{c.shell, c.shellCh}, {c.control, c.controlCh}} {
		id := c.send(ch.s, "kernel_info_request", map[string]any{})
		r := c.reply(ch.in, id)
		if r.Header.MsgType != "kernel_info_reply" || r.Header.Version != "5.3" {
			t.Fatalf("header %+v", r.Header)
		}
		got := content(t, r)
		if got["status"] != "ok" || got["protocol_version"] != "5.3" || got["implementation"] != "gnnrepl" {
			t.Errorf("kernel_info_reply %v", got)
		}
		li := got["language_info"].(map[string]any)
		if li["name"] != "go" || li["mimetype"] != "text/x-go" || li["file_extension"] != ".go" || li["version"] == "" {
			t.Errorf("language_info %v", li)
		}
		if links, _ := got["help_links"].([]any); len(links) == 0 {
			t.Errorf("no help_links")
		}
		pub := c.iopubUntilIdle(id)
		if types(pub) != "status:busy status:idle" {
			t.Errorf("IOPub %s", types(pub))
		}
	}
}

func TestHeartbeatEchoes(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	for i := range 3 {
		ping := []byte(fmt.Sprintf("ping %d", i))
		if err := c.hb.Send(zmq4.NewMsg(ping)); err != nil {
			t.Fatal(err)
		}
		msg, err := c.hb.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if string(msg.Bytes()) != string(ping) {
			t.Fatalf("heartbeat echoed %q, want %q", msg.Bytes(), ping)
		}
	}
}

func TestStatusStartingOnce(t *testing.T) {
	k, err := New(ConnectionInfo{IP: "127.0.0.1", Key: testKey}, newFake(), Options{Log: &syncBuilder{}})
	if err != nil {
		t.Fatal(err)
	}
	c := dialClient(t, k.ConnectionInfo())
	// Serve only once the kernel's PUB socket knows the subscription, so
	// that "starting" cannot be lost.
	for deadline := time.Now().Add(testTimeout); ; time.Sleep(5 * time.Millisecond) {
		if k.iopub.Subscribed() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("subscription never reached the kernel")
		}
	}
	served := make(chan error, 1)
	go func() { served <- k.Serve() }()
	defer func() { k.Close(); <-served }()
	id := c.send(c.shell, "kernel_info_request", map[string]any{})
	c.reply(c.shellCh, id)
	c.iopubUntilIdle(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	starting, statuses := 0, 0
	for _, m := range c.pub {
		if m.Header.MsgType == "iopub_welcome" {
			if got := content(t, m)["subscription"]; got != "" {
				t.Errorf("iopub_welcome subscription %q", got)
			}
			continue
		}
		if m.Header.MsgType == "status" {
			statuses++
		}
		if isStatus(m, "starting") {
			starting++
			if statuses != 1 || string(m.Parent) != "{}" {
				t.Errorf("starting is status %d, with parent %s", statuses, m.Parent)
			}
		}
	}
	if starting != 1 {
		t.Errorf("%d status starting messages, want 1", starting)
	}
}

func TestExecuteBasics(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	reply, pub := c.execute("out hello\nresult 2", nil)
	if reply["status"] != "ok" || reply["execution_count"] != 1.0 {
		t.Fatalf("reply %v", reply)
	}
	if _, ok := reply["user_expressions"].(map[string]any); !ok {
		t.Errorf("reply lacks user_expressions: %v", reply)
	}
	if got := types(pub); got != "execute_input stream execute_result" {
		t.Fatalf("IOPub %s", got)
	}
	in := content(t, pub[0])
	if in["code"] != "out hello\nresult 2" || in["execution_count"] != 1.0 {
		t.Errorf("execute_input %v", in)
	}
	st := content(t, pub[1])
	if st["name"] != "stdout" || st["text"] != "hello\n" {
		t.Errorf("stream %v", st)
	}
	res := content(t, pub[2])
	if res["execution_count"] != 1.0 || res["data"].(map[string]any)["text/plain"] != "2" {
		t.Errorf("execute_result %v", res)
	}
	reply, _ = c.execute("result 3", nil)
	if reply["execution_count"] != 2.0 {
		t.Errorf("second execution_count %v", reply["execution_count"])
	}
}

func TestExecutionCount(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	steps := []struct {
		opts      map[string]any
		wantCount float64
		wantPub   string
	}{
		{nil, 1, "execute_input execute_result"},
		{map[string]any{"store_history": false}, 1, "execute_input execute_result"},
		{map[string]any{"silent": true}, 1, ""},
		{map[string]any{"silent": true, "store_history": true}, 1, ""}, // silent forces store_history off
		{nil, 2, "execute_input execute_result"},
	}
	for i, s := range steps {
		reply, pub := c.execute("result x", s.opts)
		if reply["execution_count"] != s.wantCount {
			t.Errorf("step %d: execution_count %v, want %v", i, reply["execution_count"], s.wantCount)
		}
		if got := types(pub); got != s.wantPub {
			t.Errorf("step %d: IOPub %q, want %q", i, got, s.wantPub)
		}
		if len(pub) > 0 && content(t, pub[0])["execution_count"] != s.wantCount {
			t.Errorf("step %d: execute_input count %v", i, content(t, pub[0])["execution_count"])
		}
	}
	// A silent cell's output is not broadcast.
	_, pub := c.execute("out secret\nerr secret", map[string]any{"silent": true})
	if len(pub) != 0 {
		t.Errorf("silent cell published %s", types(pub))
	}
}

func TestStreamsKeepOrder(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	_, pub := c.execute("out a\nout b\nerr c\nout d\nerr e\nerr f", nil)
	var got []string
	for _, m := range pub[1:] {
		s := content(t, m)
		got = append(got, s["name"].(string)+":"+s["text"].(string))
	}
	want := []string{"stdout:a\nb\n", "stderr:c\n", "stdout:d\n", "stderr:e\nf\n"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("streams %q, want %q", got, want)
	}
}

func TestDisplayUpdateAndClear(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	_, pub := c.execute("out before\ndisplay progress\nclear\nout after", nil)
	if got := types(pub); got != "execute_input stream display_data update_display_data clear_output stream" {
		t.Fatalf("IOPub %s", got)
	}
	d := content(t, pub[2])
	if d["data"].(map[string]any)["text/html"] != "<b>first</b>" || d["transient"].(map[string]any)["display_id"] != "progress" {
		t.Errorf("display_data %v", d)
	}
	u := content(t, pub[3])
	if u["data"].(map[string]any)["text/plain"] != "second" || u["transient"].(map[string]any)["display_id"] != "progress" || u["metadata"].(map[string]any)["k"] != 1.0 {
		t.Errorf("update_display_data %v", u)
	}
	if content(t, pub[4])["wait"] != true {
		t.Errorf("clear_output %v", content(t, pub[4]))
	}
}

func TestDisplayUpdateNeedsID(t *testing.T) {
	k, _, _ := startKernel(t, newFake(), testKey)
	cio := newCellIO(k, &Message{RawHeader: json.RawMessage(`{}`)}, k.ctx, false, false)
	defer cio.finish()
	if err := cio.Display(map[string]any{"text/plain": "x"}, nil, "", true); err == nil {
		t.Error("update without display id: no error")
	}
}

func TestErrorReplyAndIOPub(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	reply, pub := c.execute("out partial\nfail shape mismatch: (3, 4) x (5, 6)", nil)
	if reply["status"] != "error" || reply["ename"] != "Error" || reply["evalue"] != "shape mismatch: (3, 4) x (5, 6)" || reply["execution_count"] != 1.0 {
		t.Fatalf("reply %v", reply)
	}
	if got := types(pub); got != "execute_input stream error" {
		t.Fatalf("IOPub %s", got)
	}
	e := content(t, pub[2])
	tb, _ := e["traceback"].([]any)
	if e["ename"] != "Error" || len(tb) == 0 || !strings.Contains(tb[0].(string), "shape mismatch") {
		t.Errorf("error %v", e)
	}
	reply, _ = c.execute("syntax", nil)
	if reply["ename"] != "SyntaxError" || reply["traceback"].([]any)[0] != "cell:1:1: expected operand, found '}'" {
		t.Errorf("CellError reply %v", reply)
	}
}

// TestStopOnErrorAborts checks ipykernel's behaviour: when a cell fails,
// the execute_requests that arrived while it ran are aborted, other
// requests are served, and later requests run again.
func TestStopOnErrorAborts(t *testing.T) {
	for _, stop := range []bool{true, false} {
		t.Run(fmt.Sprint("stop_on_error=", stop), func(t *testing.T) {
			f := newFake()
			k, c, _ := startKernel(t, f, testKey)
			base := k.recvSeq.Load()
			req := func(code string) string {
				return c.send(c.shell, "execute_request", map[string]any{"code": code, "stop_on_error": stop})
			}
			first := req("block")
			f.waitStarted("block")
			queued := []string{req("result a"), req("result b")}
			info := c.send(c.shell, "kernel_info_request", map[string]any{})
			// Wait until the kernel has read all three; then fail the cell.
			for k.recvSeq.Load() < base+4 {
				time.Sleep(time.Millisecond)
			}
			c.send(c.control, "interrupt_request", map[string]any{})
			if r := content(t, c.reply(c.shellCh, first)); r["status"] != "error" || r["ename"] != "KeyboardInterrupt" {
				t.Fatalf("first reply %v", r)
			}
			for _, id := range queued {
				r := content(t, c.reply(c.shellCh, id))
				want := "aborted"
				if !stop {
					want = "ok"
				}
				if r["status"] != want {
					t.Errorf("queued reply %v, want status %s", r, want)
				}
				pub := c.iopubUntilIdle(id)
				if stop && types(pub) != "status:busy status:idle" {
					t.Errorf("aborted request IOPub %s", types(pub))
				}
			}
			if r := c.reply(c.shellCh, info); content(t, r)["status"] != "ok" {
				t.Errorf("kernel_info after error: %v", content(t, r))
			}
			if reply, _ := c.execute("result later", nil); reply["status"] != "ok" {
				t.Errorf("request after the abort window: %v", reply)
			}
		})
	}
}

func TestInterruptRunningCell(t *testing.T) {
	f := newFake()
	_, c, _ := startKernel(t, f, testKey)
	id := c.send(c.shell, "execute_request", map[string]any{"code": "out working\nblock"})
	f.waitStarted("out working\nblock")
	c.waitIOPub(id, "stream") // output streams while the cell runs
	ir := c.send(c.control, "interrupt_request", map[string]any{})
	if r := content(t, c.reply(c.controlCh, ir)); r["status"] != "ok" {
		t.Errorf("interrupt_reply %v", r)
	}
	r := content(t, c.reply(c.shellCh, id))
	if r["status"] != "error" || r["ename"] != "KeyboardInterrupt" {
		t.Errorf("interrupted reply %v", r)
	}
	if reply, _ := c.execute("result alive", nil); reply["status"] != "ok" {
		t.Errorf("after interrupt: %v", reply)
	}
	// An interrupt with nothing running is answered and harmless.
	ir = c.send(c.control, "interrupt_request", map[string]any{})
	c.reply(c.controlCh, ir)
	if reply, _ := c.execute("result alive", nil); reply["status"] != "ok" {
		t.Errorf("after idle interrupt: %v", reply)
	}
}

func TestInputRequest(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	for _, cmd := range []string{"input", "password"} {
		id := c.send(c.shell, "execute_request", map[string]any{"code": "out asking\n" + cmd + " name? ", "allow_stdin": true})
		req := c.reply(c.stdinCh, id)
		if req.Header.MsgType != "input_request" {
			t.Fatalf("stdin got %s", req.Header.MsgType)
		}
		rc := content(t, req)
		if rc["prompt"] != "name? " || rc["password"] != (cmd == "password") {
			t.Errorf("input_request %v", rc)
		}
		// Output written before the request is flushed before it.
		c.waitIOPub(id, "stream")
		c.sendHeader(c.stdin, c.header("input_reply"), req.RawHeader, map[string]any{"value": "Ada", "status": "ok"})
		r := c.reply(c.shellCh, id)
		if content(t, r)["status"] != "ok" {
			t.Fatalf("reply %v", content(t, r))
		}
		pub := c.iopubUntilIdle(id)
		found := false
		for _, m := range pub {
			if m.Header.MsgType == "execute_result" && content(t, m)["data"].(map[string]any)["text/plain"] == "got Ada" {
				found = true
			}
		}
		if !found {
			t.Errorf("no result from input: %s", types(pub))
		}
	}
	// Without allow_stdin, Input fails at once.
	reply, _ := c.execute("input name?", map[string]any{"allow_stdin": false})
	if reply["status"] != "error" || !strings.Contains(reply["evalue"].(string), "allow_stdin") {
		t.Errorf("input without allow_stdin: %v", reply)
	}
}

func TestInterruptWhileWaitingForInput(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	id := c.send(c.shell, "execute_request", map[string]any{"code": "input name?", "allow_stdin": true})
	req := c.reply(c.stdinCh, id)
	c.reply(c.controlCh, c.send(c.control, "interrupt_request", map[string]any{}))
	r := content(t, c.reply(c.shellCh, id))
	if r["ename"] != "KeyboardInterrupt" {
		t.Errorf("reply %v", r)
	}
	// A late reply to the abandoned request is ignored.
	c.sendHeader(c.stdin, c.header("input_reply"), req.RawHeader, map[string]any{"value": "late"})
	if reply, _ := c.execute("result fine", nil); reply["status"] != "ok" {
		t.Errorf("after: %v", reply)
	}
}

func TestLateGoroutineOutput(t *testing.T) {
	f := newFake()
	_, c, _ := startKernel(t, f, testKey)
	id := c.send(c.shell, "execute_request", map[string]any{"code": "late from goroutine"})
	c.reply(c.shellCh, id)
	c.iopubUntilIdle(id)
	(<-f.late)()
	m := c.waitIOPub(id, "stream")
	if content(t, m)["text"] != "from goroutine\n" {
		t.Errorf("late stream %v", content(t, m))
	}
}

func TestUnencodableResult(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	reply, pub := c.execute("nan", nil)
	if reply["status"] != "ok" || types(pub) != "execute_input execute_result" {
		t.Fatalf("reply %v IOPub %s", reply, types(pub))
	}
	if d := content(t, pub[1])["data"].(map[string]any); d["text/plain"] != "NaN" {
		t.Errorf("data %v", d)
	}
}

func TestUserExpressions(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	reply, _ := c.execute("result 1", map[string]any{"user_expressions": map[string]any{"a": "x", "b": "nope", "c": "boom"}})
	ue := reply["user_expressions"].(map[string]any)
	a := ue["a"].(map[string]any)
	if a["status"] != "ok" || a["data"].(map[string]any)["text/plain"] != "42" {
		t.Errorf("a: %v", a)
	}
	b := ue["b"].(map[string]any)
	if b["status"] != "error" || b["evalue"] != "undefined: nope" {
		t.Errorf("b: %v", b)
	}
	if cc := ue["c"].(map[string]any); cc["status"] != "error" || cc["ename"] != "Panic" {
		t.Errorf("c: %v", cc)
	}
	if reply["execution_count"] != 1.0 {
		t.Errorf("user expressions changed the count: %v", reply["execution_count"])
	}
}

func TestCompleteCodePoints(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	cases := []struct {
		code       string
		cursor     int // code points
		start, end float64
		matches    []any
	}{
		{"fmt.Pri", 7, 4, 7, []any{"Print", "Printf", "Println"}},
		// "é" and "日本" are 2 and 3 bytes per code point: byte offsets would differ.
		{`s := "é"; fmt.Prin`, 18, 14, 18, []any{"Print", "Printf", "Println"}},
		{"x := λf", 7, 5, 7, []any{"λfunc"}},
		{"日", 1, 0, 1, []any{"日本"}},
		{"fmt.Pri + 1", 7, 4, 7, []any{"Print", "Printf", "Println"}},
		{"zzz", 99, 0, 3, []any{}}, // cursor past the end is clamped
	}
	for _, tc := range cases {
		id := c.send(c.shell, "complete_request", map[string]any{"code": tc.code, "cursor_pos": tc.cursor})
		r := content(t, c.reply(c.shellCh, id))
		if r["status"] != "ok" || r["cursor_start"] != tc.start || r["cursor_end"] != tc.end || !reflect.DeepEqual(r["matches"], tc.matches) {
			t.Errorf("complete(%q, %d) = %v", tc.code, tc.cursor, r)
		}
	}
	// A missing cursor_pos means the end of the code.
	id := c.send(c.shell, "complete_request", map[string]any{"code": "x := λf"})
	if r := content(t, c.reply(c.shellCh, id)); r["cursor_end"] != 7.0 {
		t.Errorf("no cursor_pos: %v", r)
	}
	// A protocol 5.1 front end counts UTF-16 units: the emoji is 2 units.
	h := c.header("complete_request")
	h.Version = "5.1"
	c.sendHeader(c.shell, h, nil, map[string]any{"code": "s := \"😀\"; λf", "cursor_pos": 13})
	if r := content(t, c.reply(c.shellCh, h.MsgID)); r["cursor_start"] != 11.0 || r["cursor_end"] != 13.0 {
		t.Errorf("UTF-16 complete: %v", r)
	}
}

func TestInspect(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	for _, detail := range []int{0, 1} {
		id := c.send(c.shell, "inspect_request", map[string]any{"code": "é fmt.Println(x)", "cursor_pos": 8, "detail_level": detail})
		r := content(t, c.reply(c.shellCh, id))
		text, _ := r["data"].(map[string]any)["text/plain"].(string)
		if r["status"] != "ok" || r["found"] != true || !strings.HasPrefix(text, "func Println") || strings.Contains(text, "default formats") != (detail == 1) {
			t.Errorf("inspect detail %d: %v", detail, r)
		}
	}
	id := c.send(c.shell, "inspect_request", map[string]any{"code": "nothing", "cursor_pos": 3})
	if r := content(t, c.reply(c.shellCh, id)); r["found"] != false || len(r["data"].(map[string]any)) != 0 {
		t.Errorf("not found: %v", r)
	}
}

func TestIsComplete(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	cases := []struct {
		code, status string
		indent       any
	}{
		{"x := 1", "complete", nil},
		{"for {", "incomplete", "\t"},
		{"}", "invalid", nil},
		{"???", "unknown", nil}, // the session's unknown status word is mapped
		{"PANIC", "unknown", nil},
	}
	for _, tc := range cases {
		id := c.send(c.shell, "is_complete_request", map[string]any{"code": tc.code})
		r := content(t, c.reply(c.shellCh, id))
		if r["status"] != tc.status || r["indent"] != tc.indent {
			t.Errorf("is_complete(%q) = %v", tc.code, r)
		}
	}
}

func TestHistory(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	for _, code := range []string{"result a", "out b", "result a", "result c"} {
		c.execute(code, nil)
	}
	c.execute("result not stored", map[string]any{"store_history": false})
	hist := func(req map[string]any) []any {
		id := c.send(c.shell, "history_request", req)
		r := content(t, c.reply(c.shellCh, id))
		if r["status"] != "ok" {
			t.Fatalf("history %v: %v", req, r)
		}
		return r["history"].([]any)
	}
	check := func(name string, got []any, want string) {
		t.Helper()
		b, _ := json.Marshal(got)
		if string(b) != want {
			t.Errorf("%s: %s, want %s", name, b, want)
		}
	}
	check("tail", hist(map[string]any{"hist_access_type": "tail", "n": 2, "output": false, "raw": true}),
		`[[1,3,"result a"],[1,4,"result c"]]`)
	check("tail output", hist(map[string]any{"hist_access_type": "tail", "n": 2, "output": true, "raw": true}),
		`[[1,3,["result a","a"]],[1,4,["result c","c"]]]`)
	check("range", hist(map[string]any{"hist_access_type": "range", "session": 0, "start": 2, "stop": 4, "raw": true}),
		`[[1,2,"out b"],[1,3,"result a"]]`)
	check("range to end", hist(map[string]any{"hist_access_type": "range", "session": 1, "start": 3, "stop": 0}),
		`[[1,3,"result a"],[1,4,"result c"]]`)
	check("range output none", hist(map[string]any{"hist_access_type": "range", "session": 0, "start": 2, "stop": 3, "output": true}),
		`[[1,2,["out b",null]]]`)
	check("range other session", hist(map[string]any{"hist_access_type": "range", "session": -1, "start": 1, "stop": 0}), `[]`)
	check("search", hist(map[string]any{"hist_access_type": "search", "pattern": "result*"}),
		`[[1,1,"result a"],[1,3,"result a"],[1,4,"result c"]]`)
	check("search unique", hist(map[string]any{"hist_access_type": "search", "pattern": "result ?", "unique": true}),
		`[[1,3,"result a"],[1,4,"result c"]]`)
	check("search n", hist(map[string]any{"hist_access_type": "search", "pattern": "*a", "n": 1}),
		`[[1,3,"result a"]]`)
	check("search class", hist(map[string]any{"hist_access_type": "search", "pattern": "[o]*"}), `[[1,2,"out b"]]`)
	id := c.send(c.shell, "history_request", map[string]any{"hist_access_type": "sideways"})
	if r := content(t, c.reply(c.shellCh, id)); r["status"] != "error" {
		t.Errorf("bad hist_access_type: %v", r)
	}
}

func TestComms(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), testKey)
	id := c.send(c.shell, "comm_info_request", map[string]any{})
	r := content(t, c.reply(c.shellCh, id))
	if r["status"] != "ok" || len(r["comms"].(map[string]any)) != 0 {
		t.Errorf("comm_info_reply %v", r)
	}
	id = c.send(c.shell, "comm_open", map[string]any{"comm_id": "c-1", "target_name": "jupyter.widget", "data": map[string]any{}})
	pub := c.iopubUntilIdle(id)
	if types(pub) != "status:busy comm_close status:idle" {
		t.Fatalf("comm_open IOPub %s", types(pub))
	}
	if cc := content(t, pub[1]); cc["comm_id"] != "c-1" {
		t.Errorf("comm_close %v", cc)
	}
	// comm_msg and comm_close expect no reply; the kernel stays busy/idle only.
	id = c.send(c.shell, "comm_msg", map[string]any{"comm_id": "c-1", "data": map[string]any{}})
	if got := types(c.iopubUntilIdle(id)); got != "status:busy status:idle" {
		t.Errorf("comm_msg IOPub %s", got)
	}
}

func TestShutdown(t *testing.T) {
	for _, restart := range []bool{false, true} {
		for _, onShell := range []bool{false, true} {
			t.Run(fmt.Sprintf("restart=%v,shell=%v", restart, onShell), func(t *testing.T) {
				k, err := New(ConnectionInfo{IP: "127.0.0.1", Key: testKey}, newFake(), Options{Log: &syncBuilder{}})
				if err != nil {
					t.Fatal(err)
				}
				served := make(chan error, 1)
				go func() { served <- k.Serve() }()
				c := dialClient(t, k.ConnectionInfo())
				c.waitSubscribed()
				s, in := c.control, c.controlCh
				if onShell {
					s, in = c.shell, c.shellCh
				}
				id := c.send(s, "shutdown_request", map[string]any{"restart": restart})
				r := content(t, c.reply(in, id))
				if r["status"] != "ok" || r["restart"] != restart {
					t.Errorf("shutdown_reply %v", r)
				}
				c.iopubUntilIdle(id)
				if err := <-served; err != nil {
					t.Errorf("Serve: %v", err)
				}
				k.Close() // idempotent after Serve returned
				c.Close()
				waitNoGoroutines(t)
			})
		}
	}
}

func TestShutdownStopsRunningCell(t *testing.T) {
	f := newFake()
	k, err := New(ConnectionInfo{IP: "127.0.0.1", Key: testKey}, f, Options{Log: &syncBuilder{}})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- k.Serve() }()
	c := dialClient(t, k.ConnectionInfo())
	c.waitSubscribed()
	id := c.send(c.shell, "execute_request", map[string]any{"code": "block"})
	f.waitStarted("block")
	c.reply(c.controlCh, c.send(c.control, "shutdown_request", map[string]any{"restart": false}))
	r := content(t, c.reply(c.shellCh, id))
	if r["status"] != "error" || r["ename"] != "KernelShutdown" {
		t.Errorf("cell reply %v", r)
	}
	<-served
	c.Close()
	waitNoGoroutines(t)
}

func TestCloseWithoutServe(t *testing.T) {
	k, err := New(ConnectionInfo{IP: "127.0.0.1", Key: testKey}, newFake(), Options{Log: &syncBuilder{}})
	if err != nil {
		t.Fatal(err)
	}
	k.Close()
	if err := k.Serve(); err == nil {
		t.Error("Serve after Close: no error")
	}
	waitNoGoroutines(t)
}

func TestBindOnlyToConnectionIP(t *testing.T) {
	k, err := New(ConnectionInfo{IP: "127.0.0.1", Key: testKey}, newFake(), Options{Log: &syncBuilder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	for _, a := range []net.Addr{k.hb.Addr(), k.shell.Addr(), k.control.Addr(), k.stdin.Addr(), k.iopub.Addr()} {
		if !strings.HasPrefix(a.String(), "127.0.0.1:") {
			t.Errorf("bound to %s", a)
		}
	}
	info := k.ConnectionInfo()
	ports := map[int]bool{info.HBPort: true, info.ShellPort: true, info.ControlPort: true, info.StdinPort: true, info.IOPubPort: true}
	if len(ports) != 5 || ports[0] {
		t.Errorf("ports %+v", info)
	}
	// A port that is taken is reported with its endpoint.
	_, err = New(ConnectionInfo{IP: "127.0.0.1", ShellPort: info.ShellPort}, newFake(), Options{Log: &syncBuilder{}})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("tcp://127.0.0.1:%d", info.ShellPort)) {
		t.Errorf("busy port: %v", err)
	}
}

// TestIPCTransport serves over Unix domain sockets (transport "ipc", the
// endpoints ip-port) and removes them at shutdown.
func TestIPCTransport(t *testing.T) {
	dir := t.TempDir()
	info := ConnectionInfo{Transport: "ipc", IP: filepath.Join(dir, "kernel"), ShellPort: 1, IOPubPort: 2, StdinPort: 3, ControlPort: 4, HBPort: 5, Key: testKey, SignatureScheme: "hmac-sha256"}
	k, err := New(info, newFake(), Options{Log: &syncBuilder{}})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- k.Serve() }()
	c := dialClient(t, k.ConnectionInfo())
	c.waitSubscribed()
	if reply, _ := c.execute("result ipc", nil); reply["status"] != "ok" {
		t.Errorf("reply %v", reply)
	}
	c.reply(c.controlCh, c.send(c.control, "shutdown_request", map[string]any{}))
	<-served
	c.Close()
	if m, _ := filepath.Glob(filepath.Join(dir, "kernel-*")); len(m) != 0 {
		t.Errorf("sockets left behind: %v", m)
	}
}
