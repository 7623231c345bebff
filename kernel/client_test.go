package kernel

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// testTimeout bounds every wait of the test client, so that a broken
// kernel fails a test instead of hanging it. It is not a speed assertion.
const testTimeout = 30 * time.Second

// testClient talks to a kernel the way a Jupyter front end does: DEALER
// sockets for shell, control and stdin (shell and stdin share an
// identity), SUB for IOPub and REQ for the heartbeat.
type testClient struct {
	t       testing.TB
	sig     *signer
	session string

	shell, control, stdin, iopub, hb zmq4.Socket

	shellCh, controlCh, stdinCh chan *Message

	mu    sync.Mutex
	cond  *sync.Cond
	pub   []*Message // every IOPub message received, in order
	wg    sync.WaitGroup
	close sync.Once
}

func dialClient(t testing.TB, info ConnectionInfo) *testClient {
	t.Helper()
	sig, err := newSigner(info.SignatureScheme, info.Key)
	if err != nil {
		t.Fatal(err)
	}
	c := &testClient{t: t, sig: sig, session: newID(),
		shellCh: make(chan *Message, 256), controlCh: make(chan *Message, 256), stdinCh: make(chan *Message, 256)}
	c.cond = sync.NewCond(&c.mu)
	ctx := context.Background()
	id := zmq4.SocketIdentity(newID())
	c.shell = zmq4.NewDealer(ctx, zmq4.WithID(id))
	c.stdin = zmq4.NewDealer(ctx, zmq4.WithID(id))
	c.control = zmq4.NewDealer(ctx)
	c.iopub = zmq4.NewSub(ctx)
	c.hb = zmq4.NewReq(ctx)
	for _, d := range []struct {
		s    zmq4.Socket
		port int
	}{{c.shell, info.ShellPort}, {c.stdin, info.StdinPort}, {c.control, info.ControlPort}, {c.iopub, info.IOPubPort}, {c.hb, info.HBPort}} {
		if err := d.s.Dial(info.endpoint(d.port)); err != nil {
			t.Fatalf("dial %s: %v", info.endpoint(d.port), err)
		}
	}
	if err := c.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	c.reader(c.shell, c.shellCh)
	c.reader(c.control, c.controlCh)
	c.reader(c.stdin, c.stdinCh)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			msg, err := c.iopub.Recv()
			if err != nil {
				c.cond.Broadcast()
				return
			}
			m, err := c.sig.decode(msg.Frames)
			if err != nil {
				c.t.Errorf("client: bad IOPub message: %v", err)
				continue
			}
			c.mu.Lock()
			c.pub = append(c.pub, m)
			c.mu.Unlock()
			c.cond.Broadcast()
		}
	}()
	t.Cleanup(c.Close)
	return c
}

// waitSubscribed nudges the kernel with kernel_info_request until IOPub
// delivers something, as jupyter_client does, so that no message of the
// test proper is lost to the PUB/SUB slow-joiner race.
func (c *testClient) waitSubscribed() {
	c.t.Helper()
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		id := c.send(c.shell, "kernel_info_request", map[string]any{})
		c.reply(c.shellCh, id)
		if c.waitIOPubFor(id, 200*time.Millisecond) {
			c.iopubUntilIdle(id)
			return
		}
	}
	c.t.Fatal("client: IOPub never delivered a message")
}

func (c *testClient) reader(s zmq4.Socket, ch chan *Message) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			msg, err := s.Recv()
			if err != nil {
				return
			}
			m, err := c.sig.decode(msg.Frames)
			if err != nil {
				c.t.Errorf("client: bad message: %v", err)
				continue
			}
			ch <- m
		}
	}()
}

// Close closes the client's sockets and waits for its goroutines.
func (c *testClient) Close() {
	c.close.Do(func() {
		for _, s := range []zmq4.Socket{c.shell, c.control, c.stdin, c.iopub, c.hb} {
			s.Close()
		}
		c.wg.Wait()
	})
}

// header builds a request header of this client.
func (c *testClient) header(msgType string) Header {
	return Header{MsgID: newID(), Session: c.session, Username: "test", Date: isoNow(), MsgType: msgType, Version: ProtocolVersion}
}

// send sends a request on s and returns its msg_id.
func (c *testClient) send(s zmq4.Socket, msgType string, content any) string {
	c.t.Helper()
	h := c.header(msgType)
	c.sendHeader(s, h, nil, content)
	return h.MsgID
}

func (c *testClient) sendHeader(s zmq4.Socket, h Header, parent json.RawMessage, content any) {
	c.t.Helper()
	frames, err := c.sig.encode(nil, h, parent, nil, content)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(s, frames)
}

func (c *testClient) sendRaw(s zmq4.Socket, frames [][]byte) {
	c.t.Helper()
	if err := s.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatalf("client: send: %v", err)
	}
}

// reply waits on ch for the reply to msgID, skipping replies to others.
func (c *testClient) reply(ch chan *Message, msgID string) *Message {
	c.t.Helper()
	timer := time.NewTimer(testTimeout)
	defer timer.Stop()
	for {
		select {
		case m := <-ch:
			if parentID(m) == msgID {
				return m
			}
		case <-timer.C:
			c.t.Fatalf("client: no reply to %s", msgID)
			return nil
		}
	}
}

// noReply checks that ch delivers no reply to msgID before a later request
// sent on the same socket (sync) is answered; sockets deliver in order, so
// this proves msgID was not answered without waiting on a clock.
func (c *testClient) noReply(ch chan *Message, msgID, syncID string) {
	c.t.Helper()
	timer := time.NewTimer(testTimeout)
	defer timer.Stop()
	for {
		select {
		case m := <-ch:
			switch parentID(m) {
			case msgID:
				c.t.Fatalf("client: unexpected reply %s to %s", m.Header.MsgType, msgID)
			case syncID:
				return
			}
		case <-timer.C:
			c.t.Fatalf("client: no reply to %s", syncID)
		}
	}
}

func parentID(m *Message) string {
	var p struct {
		MsgID string `json:"msg_id"`
	}
	json.Unmarshal(m.Parent, &p)
	return p.MsgID
}

func content(t testing.TB, m *Message) map[string]any {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal(m.Content, &c); err != nil {
		t.Fatalf("content of %s: %v", m.Header.MsgType, err)
	}
	return c
}

// waitIOPubFor reports whether any IOPub message with parent msgID arrives
// within d (used only by waitSubscribed's nudging).
func (c *testClient) waitIOPubFor(msgID string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	timer := time.AfterFunc(d, c.cond.Broadcast)
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for _, m := range c.pub {
			if parentID(m) == msgID {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		c.cond.Wait()
	}
}

// iopubUntilIdle waits for the status idle of msgID and returns every
// IOPub message of that parent, in order, status messages included.
func (c *testClient) iopubUntilIdle(msgID string) []*Message {
	c.t.Helper()
	deadline := time.Now().Add(testTimeout)
	timer := time.AfterFunc(testTimeout, c.cond.Broadcast)
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		var got []*Message
		idle := false
		for _, m := range c.pub {
			if parentID(m) != msgID {
				continue
			}
			got = append(got, m)
			if m.Header.MsgType == "status" && strings.Contains(string(m.Content), `"idle"`) {
				idle = true
			}
		}
		if idle {
			return got
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("client: no idle status for %s; got %s", msgID, types(got))
		}
		c.cond.Wait()
	}
}

// waitIOPub waits until an IOPub message of parent msgID and type msgType
// has arrived and returns it.
func (c *testClient) waitIOPub(msgID, msgType string) *Message {
	c.t.Helper()
	deadline := time.Now().Add(testTimeout)
	timer := time.AfterFunc(testTimeout, c.cond.Broadcast)
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for _, m := range c.pub {
			if parentID(m) == msgID && m.Header.MsgType == msgType {
				return m
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("client: no %s for %s", msgType, msgID)
		}
		c.cond.Wait()
	}
}

func types(ms []*Message) string {
	var s []string
	for _, m := range ms {
		t := m.Header.MsgType
		if t == "status" {
			var c struct {
				State string `json:"execution_state"`
			}
			json.Unmarshal(m.Content, &c)
			t += ":" + c.State
		}
		s = append(s, t)
	}
	return strings.Join(s, " ")
}

// execute sends an execute_request and returns the reply and the IOPub
// messages of the request between busy and idle (status excluded).
func (c *testClient) execute(code string, opts map[string]any) (reply map[string]any, pub []*Message) {
	c.t.Helper()
	req := map[string]any{"code": code, "silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true}
	for k, v := range opts {
		req[k] = v
	}
	id := c.send(c.shell, "execute_request", req)
	r := c.reply(c.shellCh, id)
	if r.Header.MsgType != "execute_reply" {
		c.t.Fatalf("reply type %s", r.Header.MsgType)
	}
	all := c.iopubUntilIdle(id)
	if len(all) < 2 || !isStatus(all[0], "busy") || !isStatus(all[len(all)-1], "idle") {
		c.t.Fatalf("IOPub of %q not bracketed by busy/idle: %s", code, types(all))
	}
	return content(c.t, r), all[1 : len(all)-1]
}

func isStatus(m *Message, state string) bool {
	if m.Header.MsgType != "status" {
		return false
	}
	var c struct {
		State string `json:"execution_state"`
	}
	json.Unmarshal(m.Content, &c)
	return c.State == state
}

// startKernel starts a kernel with sess on 127.0.0.1 with system-chosen
// ports, serves it, and returns it with a subscribed client. The kernel is
// closed at the end of the test.
func startKernel(t testing.TB, sess Session, key string) (*Kernel, *testClient, *syncBuilder) {
	t.Helper()
	return startKernelOpts(t, sess, key, Options{})
}

// startKernelOpts is startKernel with options (their Log is replaced by the
// returned builder).
func startKernelOpts(t testing.TB, sess Session, key string, opts Options) (*Kernel, *testClient, *syncBuilder) {
	t.Helper()
	log := &syncBuilder{}
	opts.Log = log
	k, err := New(ConnectionInfo{IP: "127.0.0.1", Key: key, SignatureScheme: "hmac-sha256"}, sess, opts)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- k.Serve() }()
	t.Cleanup(func() {
		k.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	c := dialClient(t, k.ConnectionInfo())
	c.waitSubscribed()
	return k, c, log
}

// syncBuilder is a strings.Builder safe for concurrent writers.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// kernelGoroutines lists the stacks of goroutines running this package's
// code (kernel and test client) or zmq4's, other than tests' own.
func kernelGoroutines() []string {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	var out []string
	for _, g := range strings.Split(string(buf[:n]), "\n\n") {
		if strings.Contains(g, "testing.tRunner") {
			continue // a test's own goroutine
		}
		if strings.Contains(g, "[chan send") && strings.Contains(g, "zmq4.(*qreader).listen") {
			// zmq4 v0.17.0's reader goroutine sends a message that arrived
			// after the socket's last Recv on an unbuffered channel without
			// watching its context (msgio.go, qreader.listen), so a peer
			// that writes while a socket closes (a heartbeat ping, a late
			// request) leaves it blocked for good. A library leak of one
			// goroutine per such close, not the kernel's.
			continue
		}
		if strings.Contains(g, "gnnrepl/kernel.") || strings.Contains(g, "go-zeromq/zmq4") {
			out = append(out, g)
		}
	}
	return out
}

// waitNoGoroutines polls until kernelGoroutines is empty.
func waitNoGoroutines(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		g := kernelGoroutines()
		if len(g) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left after shutdown:\n%s", len(g), strings.Join(g, "\n\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
