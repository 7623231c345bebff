package kernel

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSignatures: a message with a bad signature is dropped and logged, a
// replayed message is dropped, and a good request is answered afterwards.
func TestSignatures(t *testing.T) {
	_, c, log := startKernel(t, newFake(), testKey)
	h := c.header("execute_request")
	frames, err := c.sig.encode(nil, h, nil, nil, map[string]any{"code": "result x"})
	if err != nil {
		t.Fatal(err)
	}
	bad := append([][]byte(nil), frames...)
	bad[1] = []byte(strings.Repeat("0", 64))
	c.sendRaw(c.shell, bad)
	unsigned := append([][]byte(nil), frames...)
	unsigned[1] = nil
	c.sendRaw(c.shell, unsigned)
	good := c.send(c.shell, "kernel_info_request", map[string]any{})
	c.noReply(c.shellCh, h.MsgID, good)
	if !strings.Contains(log.String(), "bad message signature") {
		t.Errorf("bad signature not logged; log:\n%s", log.String())
	}
	// The same bytes with the right signature are answered once; a replay
	// of them is dropped.
	c.sendRaw(c.shell, frames)
	c.reply(c.shellCh, h.MsgID)
	c.sendRaw(c.shell, frames)
	sync := c.send(c.shell, "kernel_info_request", map[string]any{})
	c.noReply(c.shellCh, h.MsgID, sync)
	if !strings.Contains(log.String(), "duplicate signature") {
		t.Errorf("replay not logged; log:\n%s", log.String())
	}
	// The signature is the lower-case hex digest (the specification's "HMAC
	// hex digest", as jupyter_client's Session writes and compares it): the
	// same digest in upper case is a bad signature, in lower case it is
	// accepted.
	h2 := c.header("kernel_info_request")
	fr2, err := c.sig.encode(nil, h2, nil, nil, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	upper := append([][]byte(nil), fr2...)
	upper[1] = []byte(strings.ToUpper(string(fr2[1])))
	if string(upper[1]) == string(fr2[1]) {
		t.Fatalf("signature %s has no letters", fr2[1])
	}
	before := strings.Count(log.String(), "bad message signature")
	c.sendRaw(c.shell, upper)
	sync2 := c.send(c.shell, "kernel_info_request", map[string]any{})
	c.noReply(c.shellCh, h2.MsgID, sync2)
	if strings.Count(log.String(), "bad message signature") != before+1 {
		t.Errorf("upper-case signature not refused as a bad signature; log:\n%s", log.String())
	}
	c.sendRaw(c.shell, fr2)
	if r := c.reply(c.shellCh, h2.MsgID); r.Header.MsgType != "kernel_info_reply" {
		t.Errorf("lower-case signature: reply %s", r.Header.MsgType)
	}
	// A bad signature on control is dropped too; the kernel still answers.
	c.sendRaw(c.control, bad)
	c.reply(c.controlCh, c.send(c.control, "kernel_info_request", map[string]any{}))
	if reply, _ := c.execute("result ok", nil); reply["status"] != "ok" {
		t.Errorf("after bad signatures: %v", reply)
	}
}

// TestNoKey: an empty key disables signing; signatures are empty and not
// checked.
func TestNoKey(t *testing.T) {
	_, c, _ := startKernel(t, newFake(), "")
	h := c.header("kernel_info_request")
	frames, _ := c.sig.encode(nil, h, nil, nil, map[string]any{})
	if len(frames[1]) != 0 {
		t.Fatalf("signature %q with no key", frames[1])
	}
	frames[1] = []byte("whatever")
	c.sendRaw(c.shell, frames)
	r := c.reply(c.shellCh, h.MsgID)
	if r.Header.MsgType != "kernel_info_reply" {
		t.Errorf("reply %s", r.Header.MsgType)
	}
	if reply, _ := c.execute("result 1", nil); reply["status"] != "ok" {
		t.Errorf("execute without key: %v", reply)
	}
}

// TestRobustness sends each kind of bad input and checks that the kernel
// answers as the specification says (error reply, or nothing) and then
// still runs a cell.
func TestRobustness(t *testing.T) {
	f := newFake()
	_, c, log := startKernel(t, f, testKey)
	sign := func(parts ...string) [][]byte {
		b := make([][]byte, len(parts))
		for i, p := range parts {
			b[i] = []byte(p)
		}
		return append([][]byte{[]byte(delimiter), c.sig.sign(b...)}, b...)
	}
	hdr := func(msgType string) string {
		b, _ := json.Marshal(c.header(msgType))
		return string(b)
	}
	// hdrID is a header of msgType with a known msg_id.
	hdrID := func(msgType string) (string, string) {
		h := c.header(msgType)
		b, _ := json.Marshal(h)
		return string(b), h.MsgID
	}
	execBadContent, execBadContentID := hdrID("execute_request")
	complBadParent, complBadParentID := hdrID("complete_request")
	raw := []struct {
		name   string
		frames [][]byte
		log    string
		// answered is the msg_id of the error reply the shell request gets
		// (a signed request whose header names it), "" when it is dropped.
		answered string
	}{
		{"no delimiter", [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d"), []byte("e"), []byte("f")}, "no <IDS|MSG> delimiter", ""},
		{"one frame", [][]byte{[]byte("hello")}, "no <IDS|MSG> delimiter", ""},
		{"too few frames", [][]byte{[]byte(delimiter), []byte("sig"), []byte("{}")}, "frames after the delimiter", ""},
		{"too few signed frames", sign(hdr("execute_request"), "{}", "{}")[:4], "frames after the delimiter", ""},
		{"undecodable header", sign(`{"msg_id": `, "{}", "{}", "{}"), "header is not a JSON object", ""},
		{"header not an object", sign(`[1,2]`, "{}", "{}", "{}"), "header is not a JSON object", ""},
		{"content not JSON", sign(execBadContent, "{}", "{}", "\xff\xfe"), "content is not a JSON object", execBadContentID},
		{"parent not an object", sign(complBadParent, "[]", "{}", `{"code":"x","cursor_pos":1}`), "parent_header is not a JSON object", complBadParentID},
		{"no msg_type", sign(`{"msg_id":"x","session":"s"}`, "{}", "{}", "{}"), "no msg_type", ""},
		{"header field of the wrong type", sign(`{"msg_id":5,"msg_type":"execute_request"}`, "{}", "{}", "{}"), "header", ""},
		{"not a request", sign(`{"msg_id":"y","msg_type":"comm_msg"}`, "{}", "{}", "[]"), "dropping malformed comm_msg", ""},
	}
	for _, r := range raw {
		c.sendRaw(c.shell, r.frames)
		if r.answered != "" {
			rep := c.reply(c.shellCh, r.answered)
			rc := content(t, rep)
			if rc["status"] != "error" || rc["ename"] != "ProtocolError" || !strings.HasSuffix(rep.Header.MsgType, "_reply") {
				t.Errorf("%s: reply %s %v, want an error reply with ename ProtocolError", r.name, rep.Header.MsgType, rc)
			}
			if got := types(c.iopubUntilIdle(r.answered)); got != "status:busy status:idle" {
				t.Errorf("%s: IOPub %s", r.name, got)
			}
		}
		c.sendRaw(c.control, r.frames)
		if reply, _ := c.execute("result alive", nil); reply["status"] != "ok" {
			t.Fatalf("%s: kernel did not answer the next execute_request: %v", r.name, reply)
		}
		// The control channel is served on its own goroutine: its log
		// line may come after the shell's reply.
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), r.log) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		if !strings.Contains(log.String(), r.log) {
			t.Errorf("%s: log lacks %q:\n%s", r.name, r.log, log.String())
		}
	}
	// A signed kernel_info_request with a header field of the wrong type
	// is answered with an error on control too.
	kiHdr := c.header("kernel_info_request")
	kiHdrJSON := `{"msg_id":"` + kiHdr.MsgID + `","msg_type":"kernel_info_request","date":7}`
	c.sendRaw(c.control, sign(kiHdrJSON, "{}", "{}", "{}"))
	if r := content(t, c.reply(c.controlCh, kiHdr.MsgID)); r["status"] != "error" || r["ename"] != "ProtocolError" {
		t.Errorf("malformed kernel_info_request on control: %v", r)
	}

	// Unknown message types get busy/idle and no reply, on both channels.
	for _, ch := range []struct {
		name string
		send func() string
		in   chan *Message
	}{
		{"shell", func() string { return c.send(c.shell, "frobnicate_request", map[string]any{}) }, c.shellCh},
		{"control", func() string { return c.send(c.control, "frobnicate_request", map[string]any{}) }, c.controlCh},
	} {
		id := ch.send()
		if got := types(c.iopubUntilIdle(id)); got != "status:busy status:idle" {
			t.Errorf("unknown on %s: IOPub %s", ch.name, got)
		}
		var sync string
		if ch.name == "shell" {
			sync = c.send(c.shell, "kernel_info_request", map[string]any{})
		} else {
			sync = c.send(c.control, "kernel_info_request", map[string]any{})
		}
		c.noReply(ch.in, id, sync)
	}
	if !strings.Contains(log.String(), `unknown message type "frobnicate_request"`) {
		t.Errorf("unknown type not logged")
	}

	// Content of the wrong shape is answered with status error.
	for _, typ := range []string{"execute_request", "complete_request", "inspect_request", "is_complete_request", "history_request"} {
		id := c.send(c.shell, typ, map[string]any{"code": 5, "cursor_pos": "x", "n": "y"})
		r := content(t, c.reply(c.shellCh, id))
		if r["status"] != "error" || r["ename"] != "ProtocolError" {
			t.Errorf("%s with bad content: %v", typ, r)
		}
	}

	// Cells that fail in every way the session can: each answered with
	// an error reply, and the next cell runs.
	cells := []struct{ code, ename string }{
		{"panic index out of range [5] with length 3", "Panic"},
		{"syntax", "SyntaxError"},
		{"alloc", "Error"},
		{"fail plain error", "Error"},
		{"nosuchcommand", "Error"},
	}
	for _, cell := range cells {
		reply, pub := c.execute(cell.code, nil)
		if reply["status"] != "error" || reply["ename"] != cell.ename {
			t.Errorf("%q: reply %v", cell.code, reply)
		}
		if got := types(pub); got != "execute_input error" {
			t.Errorf("%q: IOPub %s", cell.code, got)
		}
		if reply, _ := c.execute("result alive", nil); reply["status"] != "ok" {
			t.Fatalf("after %q: %v", cell.code, reply)
		}
	}

	// An endless cell, then an interrupt.
	id := c.send(c.shell, "execute_request", map[string]any{"code": "block"})
	f.waitStarted("block")
	c.reply(c.controlCh, c.send(c.control, "interrupt_request", map[string]any{}))
	if r := content(t, c.reply(c.shellCh, id)); r["ename"] != "KeyboardInterrupt" {
		t.Errorf("interrupted: %v", r)
	}

	// Session methods that panic are answered with errors.
	for _, typ := range []string{"complete_request", "inspect_request"} {
		id := c.send(c.shell, typ, map[string]any{"code": "PANIC", "cursor_pos": 2})
		if r := content(t, c.reply(c.shellCh, id)); r["status"] != "error" || r["ename"] != "Panic" {
			t.Errorf("%s panicking: %v", typ, r)
		}
	}
	if reply, _ := c.execute("result still alive", nil); reply["status"] != "ok" {
		t.Fatalf("at the end: %v", reply)
	}
}

// panicSession panics where the kernel calls it outside recover-wrapped
// Session calls would be fatal; it proves the dispatcher's own recover.
type panicSession struct{ fakeSession }

func (p *panicSession) IsComplete(string) (string, string) { panic("boom in handler") }

func TestHandlerPanicKeepsServing(t *testing.T) {
	_, c, _ := startKernel(t, &panicSession{*newFake()}, testKey)
	id := c.send(c.shell, "is_complete_request", map[string]any{"code": "x"})
	if r := content(t, c.reply(c.shellCh, id)); r["status"] != "unknown" {
		t.Errorf("is_complete with a panicking session: %v", r)
	}
	if reply, _ := c.execute("result ok", nil); reply["status"] != "ok" {
		t.Errorf("after: %v", reply)
	}
}

// panicOnce is a socket whose first Send panics.
type panicOnce struct {
	msgSocket
	armed atomic.Bool
}

func (p *panicOnce) Send(frames [][]byte) error {
	if p.armed.CompareAndSwap(true, false) {
		panic("send exploded")
	}
	return p.msgSocket.Send(frames)
}

// TestDispatcherRecovers: a panic in the protocol code itself (here the
// reply's Send) is recovered by the dispatcher and the kernel keeps serving.
func TestDispatcherRecovers(t *testing.T) {
	log := &syncBuilder{}
	k, err := New(ConnectionInfo{IP: "127.0.0.1", Key: testKey}, newFake(), Options{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	po := &panicOnce{msgSocket: k.shell}
	k.shell = po // before Serve starts the loops
	served := make(chan error, 1)
	go func() { served <- k.Serve() }()
	defer func() { k.Close(); <-served }()
	c := dialClient(t, k.ConnectionInfo())
	c.waitSubscribed()
	po.armed.Store(true)
	id := c.send(c.shell, "kernel_info_request", map[string]any{})
	if r := content(t, c.reply(c.shellCh, id)); r["status"] != "error" || r["ename"] != "InternalError" {
		t.Errorf("reply after a panicking send: %v", r)
	}
	if !strings.Contains(log.String(), "recovered panic handling kernel_info_request") {
		t.Errorf("log:\n%s", log.String())
	}
	if reply, _ := c.execute("badjson", nil); reply["status"] != "ok" {
		t.Errorf("value with a panicking MarshalJSON: %v", reply)
	}
	if reply, _ := c.execute("result ok", nil); reply["status"] != "ok" {
		t.Errorf("after: %v", reply)
	}
}
