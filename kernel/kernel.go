package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options tune a Kernel. The zero value is ready to use.
type Options struct {
	// Log receives one line per protocol problem (dropped message, bad
	// signature, recovered panic). Nil means os.Stderr, which Jupyter
	// shows in the server's log.
	Log io.Writer
	// ImplementationVersion is kernel_info_reply's implementation_version;
	// empty means the module version of the running binary, or "dev".
	ImplementationVersion string
	// Banner is kernel_info_reply's banner, shown by console front ends.
	Banner string
	// HelpLinks are added to the default help menu entries.
	HelpLinks []HelpLink
	// ShutdownGrace bounds how long shutdown waits for a running cell to
	// return after its context was cancelled. Zero means 2 s.
	ShutdownGrace time.Duration
	// CaptureStdio (honoured by Run only, since it is process-wide)
	// redirects file descriptors 1 and 2 to the running cell's streams.
	CaptureStdio bool
	// MaxMessageSize is the largest message, in bytes, a peer may send on
	// any socket: the sum of its frames' sizes plus 64 bytes per frame
	// (DefaultMaxMessageSize when 0 or negative). A peer that announces a
	// frame that would exceed it is disconnected before the frame is
	// allocated or read, and the refusal is logged. The ZMTP handshake is
	// limited to 64 KiB.
	MaxMessageSize int64
}

// DefaultMaxMessageSize is Options.MaxMessageSize's default, 1 GiB: far
// above any real Jupyter request (a cell's code, a comm message with
// binary buffers).
const DefaultMaxMessageSize = 1 << 30

// HelpLink is one entry of a notebook's help menu (kernel_info_reply).
type HelpLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// Kernel is one running Jupyter kernel: five bound sockets and the Session
// they drive. Create it with New, run it with Serve; it stops on
// shutdown_request or Close.
type Kernel struct {
	info ConnectionInfo
	sess Session
	opts Options
	sig  *signer

	session  string // this kernel's session id, in every header it sends
	username string

	shell, control, stdin, hb msgSocket
	iopub                     *pubSocket

	// ctx lives until shutdown; cells run under children of it.
	ctx    context.Context
	cancel context.CancelCauseFunc

	stopCh   chan struct{} // closed when shutdown was requested
	stopOnce sync.Once
	doneCh   chan struct{} // closed when Serve has torn everything down
	served   atomic.Bool
	closeMu  sync.Mutex
	closed   bool // sockets closed; guarded by closeMu
	wg       sync.WaitGroup
	workerWG sync.WaitGroup

	pubMu sync.Mutex // orders IOPub messages
	logMu sync.Mutex

	shellQ    chan shellItem
	recvSeq   atomic.Uint64 // sequence number of the last shell message read
	abortUpTo atomic.Uint64 // execute_requests with seq <= abortUpTo are aborted

	runMu      sync.Mutex
	cancelCell context.CancelCauseFunc // the running cell's cancel, or nil

	// outTarget receives process output captured by Run: the latest
	// cell's output, also after it ended (late goroutine output).
	outTarget atomic.Pointer[cellIO]
	// syncOutput, when set (by Run), waits until process output written
	// before the call has reached outTarget.
	syncOutput func()

	count int // execution counter; shell goroutine only
	hist  history

	inputMu sync.Mutex // one input_request at a time
	pendMu  sync.Mutex
	pending *pendingInput
}

type shellItem struct {
	seq    uint64
	frames [][]byte
}

type pendingInput struct {
	msgID string
	ch    chan string
}

// New binds the kernel's sockets to the addresses of info and returns a
// kernel ready to Serve. Ports given as 0 are chosen by the system (tcp); the
// actual ones are reported by ConnectionInfo. Errors name the endpoint that
// could not be bound, or the invalid field of info.
func New(info ConnectionInfo, sess Session, opts Options) (*Kernel, error) {
	if sess == nil {
		return nil, fmt.Errorf("kernel: nil Session")
	}
	if err := info.validate(); err != nil {
		return nil, fmt.Errorf("kernel: connection info: %w", err)
	}
	sig, err := newSigner(info.SignatureScheme, info.Key)
	if err != nil {
		return nil, err
	}
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = DefaultMaxMessageSize
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = 2 * time.Second
	}
	if opts.ImplementationVersion == "" {
		opts.ImplementationVersion = moduleVersion()
	}
	k := &Kernel{
		info:     info,
		sess:     sess,
		opts:     opts,
		sig:      sig,
		session:  newID(),
		username: os.Getenv("USER"),
		stopCh:   make(chan struct{}),
		doneCh:   make(chan struct{}),
		shellQ:   make(chan shellItem, 1024),
	}
	if k.username == "" {
		k.username = "kernel"
	}
	k.ctx, k.cancel = context.WithCancelCause(context.Background())

	// Bind every socket; on failure close those already bound.
	fail := func(name string, port int, err error) (*Kernel, error) {
		k.closeSockets()
		k.cancel(errShutdown)
		return nil, fmt.Errorf("kernel: binding %s socket to %s: %w", name, k.info.endpoint(port), err)
	}
	routers := []struct {
		name string
		sock *msgSocket
		port *int
	}{
		{"hb", &k.hb, &k.info.HBPort},
		{"shell", &k.shell, &k.info.ShellPort},
		{"control", &k.control, &k.info.ControlPort},
		{"stdin", &k.stdin, &k.info.StdinPort},
	}
	for _, b := range routers {
		network, addr := k.info.netAddr(*b.port)
		r, err := listenRouter(network, addr, b.name, opts.MaxMessageSize, k.logf)
		if err != nil {
			return fail(b.name, *b.port, err)
		}
		*b.sock = r
		if a, ok := r.Addr().(*net.TCPAddr); ok && *b.port == 0 {
			*b.port = a.Port
		}
	}
	network, addr := k.info.netAddr(k.info.IOPubPort)
	pub, err := listenPub(network, addr, opts.MaxMessageSize, k.logf, k.welcome)
	if err != nil {
		return fail("iopub", k.info.IOPubPort, err)
	}
	pub.notice = k.dropNotice
	k.iopub = pub
	if a, ok := pub.Addr().(*net.TCPAddr); ok && k.info.IOPubPort == 0 {
		k.info.IOPubPort = a.Port
	}
	return k, nil
}

// ConnectionInfo returns the connection information with the ports the
// kernel actually bound.
func (k *Kernel) ConnectionInfo() ConnectionInfo { return k.info }

// Serve publishes status "starting" and serves requests until a
// shutdown_request arrives or Close is called; then it cancels any running
// cell, waits for it (at most Options.ShutdownGrace), closes the sockets and
// returns nil. A shutdown_request with restart=true is answered the same way
// (the flag is echoed): restarting means starting a new process, which is
// the front end's job.
func (k *Kernel) Serve() error {
	if !k.served.CompareAndSwap(false, true) {
		return fmt.Errorf("kernel: Serve called twice")
	}
	defer close(k.doneCh)
	select {
	case <-k.stopCh: // closed before serving
		k.teardown()
		return nil
	default:
	}
	k.publish(nil, "status", map[string]any{"execution_state": "starting"})
	k.loop(k.hbLoop)
	k.loop(k.shellReader)
	k.loop(k.controlLoop)
	k.loop(k.stdinLoop)
	k.workerWG.Add(1)
	go func() {
		defer k.workerWG.Done()
		k.shellWorker()
	}()
	<-k.stopCh
	k.teardown()
	return nil
}

// Close stops the kernel as a shutdown_request would, and waits until its
// goroutines have returned and its sockets are closed. It is safe to call
// more than once and from any goroutine.
func (k *Kernel) Close() error {
	k.stop()
	if k.served.CompareAndSwap(false, true) {
		// Serve never ran: tear down here.
		k.teardown()
		close(k.doneCh)
		return nil
	}
	<-k.doneCh
	return nil
}

// stop requests shutdown; Serve does the work.
func (k *Kernel) stop() {
	k.stopOnce.Do(func() { close(k.stopCh) })
}

// iopubDrain bounds how long teardown waits for IOPub's queues to deliver
// the last messages (shutdown's idle status) before closing the socket.
const iopubDrain = time.Second

func (k *Kernel) teardown() {
	k.cancel(errShutdown) // cancels the running cell
	done := make(chan struct{})
	go func() { k.workerWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(k.opts.ShutdownGrace):
		k.logf("shutdown: the running cell did not return within %v; leaving it behind", k.opts.ShutdownGrace)
	}
	k.iopub.Flush(iopubDrain)
	k.closeSockets()
	k.wg.Wait()
}

func (k *Kernel) closeSockets() {
	// Lock order: pubMu, then closeMu. publish holds pubMu while it checks
	// closed and sends, so no Send races with Close.
	k.pubMu.Lock()
	defer k.pubMu.Unlock()
	k.closeMu.Lock()
	already := k.closed
	k.closed = true
	k.closeMu.Unlock()
	if already {
		return
	}
	for _, s := range []msgSocket{k.hb, k.shell, k.control, k.stdin} {
		if s != nil {
			s.Close()
		}
	}
	if k.iopub != nil {
		k.iopub.Close()
	}
}

func (k *Kernel) isClosed() bool {
	k.closeMu.Lock()
	defer k.closeMu.Unlock()
	return k.closed
}

// loop runs f on its own goroutine, recovering panics so that a bug in one
// loop is logged and the loop restarted rather than killing the process.
func (k *Kernel) loop(f func()) {
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		for {
			if k.runRecovered(f) {
				return
			}
			if k.isClosed() {
				return
			}
		}
	}()
}

// runRecovered runs f and reports whether it returned normally.
func (k *Kernel) runRecovered(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			k.logf("recovered panic in socket loop: %v\n%s", r, debug.Stack())
		}
	}()
	f()
	return true
}

// recv reads one message from s. ok is false once the socket is closed.
func (k *Kernel) recv(s msgSocket, name string) (frames [][]byte, ok bool) {
	for {
		frames, err := s.Recv()
		if err == nil {
			return frames, true
		}
		if k.isClosed() || errors.Is(err, errSocketClosed) {
			return nil, false
		}
		k.logf("%s: receive: %v", name, err)
		time.Sleep(10 * time.Millisecond)
	}
}

// hbLoop echoes every heartbeat message back to its sender.
func (k *Kernel) hbLoop() {
	for {
		frames, ok := k.recv(k.hb, "hb")
		if !ok {
			return
		}
		if err := k.hb.Send(frames); err != nil && !k.isClosed() {
			k.logf("hb: echo: %v", err)
		}
	}
}

// shellReader queues shell messages in arrival order, numbering them so
// that stop_on_error can abort the execute_requests that arrived before an
// error. Messages that cannot be authenticated are dropped here, so that
// while a cell runs the queue holds only signed requests, not whatever
// (up to Options.MaxMessageSize each) an unauthenticated peer sends.
func (k *Kernel) shellReader() {
	for {
		frames, ok := k.recv(k.shell, "shell")
		if !ok {
			return
		}
		if _, err := k.sig.authenticate(frames); err != nil {
			k.logf("shell: dropping message: %v", err)
			continue
		}
		it := shellItem{seq: k.recvSeq.Add(1), frames: frames}
		select {
		case k.shellQ <- it:
		case <-k.stopCh:
			return
		}
	}
}

// shellWorker handles shell requests one at a time.
func (k *Kernel) shellWorker() {
	for {
		select {
		case <-k.stopCh:
			return
		case it := <-k.shellQ:
			k.handle(shellChan, it.frames, it.seq)
		}
	}
}

// controlLoop handles control requests as they arrive, independently of a
// cell running on the shell goroutine.
func (k *Kernel) controlLoop() {
	for {
		frames, ok := k.recv(k.control, "control")
		if !ok {
			return
		}
		k.handle(controlChan, frames, 0)
	}
}

// stdinLoop delivers input_reply messages to the waiting Input call.
func (k *Kernel) stdinLoop() {
	for {
		frames, ok := k.recv(k.stdin, "stdin")
		if !ok {
			return
		}
		m, err := k.sig.decode(frames)
		if err != nil {
			k.logf("stdin: dropping message: %v", err)
			continue
		}
		if m.Header.MsgType != "input_reply" {
			k.logf("stdin: ignoring unexpected %q", m.Header.MsgType)
			continue
		}
		var c struct {
			Value string `json:"value"`
		}
		var parent struct {
			MsgID string `json:"msg_id"`
		}
		if err := json.Unmarshal(m.Content, &c); err != nil {
			k.logf("stdin: input_reply content: %v", err)
			continue
		}
		_ = json.Unmarshal(m.Parent, &parent)
		k.pendMu.Lock()
		p := k.pending
		if p != nil && (parent.MsgID == p.msgID || parent.MsgID == "") {
			k.pending = nil
			p.ch <- c.Value
		} else {
			k.logf("stdin: input_reply to %q does not answer a pending input_request; ignored", parent.MsgID)
		}
		k.pendMu.Unlock()
	}
}

// requestInput sends input_request to the front end that sent parent and
// waits for its reply, or for ctx to end.
func (k *Kernel) requestInput(ctx context.Context, parent *Message, prompt string, password bool) (string, error) {
	k.inputMu.Lock()
	defer k.inputMu.Unlock()
	if err := ctx.Err(); err != nil {
		return "", context.Cause(ctx)
	}
	h := k.header("input_request")
	p := &pendingInput{msgID: h.MsgID, ch: make(chan string, 1)}
	k.pendMu.Lock()
	k.pending = p
	k.pendMu.Unlock()
	defer func() {
		k.pendMu.Lock()
		if k.pending == p {
			k.pending = nil
		}
		k.pendMu.Unlock()
	}()
	content := map[string]any{"prompt": prompt, "password": password}
	if err := k.sendHeader(k.stdin, parent, h, nil, content); err != nil {
		return "", fmt.Errorf("kernel: sending input_request: %w", err)
	}
	select {
	case v := <-p.ch:
		return v, nil
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

type channel int

const (
	shellChan channel = iota
	controlChan
)

func (c channel) String() string {
	if c == controlChan {
		return "control"
	}
	return "shell"
}

func (k *Kernel) socket(c channel) msgSocket {
	if c == controlChan {
		return k.control
	}
	return k.shell
}

// handle decodes and dispatches one request. Every request is bracketed by
// status busy and idle on IOPub, and every panic is recovered; a request
// whose handler panicked is answered with status "error".
func (k *Kernel) handle(c channel, frames [][]byte, seq uint64) {
	m, err := k.sig.decode(frames)
	if err != nil {
		if m != nil {
			k.answerMalformed(c, m, err)
			return
		}
		k.logf("%s: dropping message: %v", c, err)
		return
	}
	stopAfter := false
	k.publish(m, "status", map[string]any{"execution_state": "busy"})
	defer func() {
		k.safely(func() { k.publish(m, "status", map[string]any{"execution_state": "idle"}) })
		if stopAfter {
			k.stop()
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			k.logf("%s: recovered panic handling %s: %v\n%s", c, m.Header.MsgType, r, debug.Stack())
			if rt, ok := replyType(m.Header.MsgType); ok {
				k.safely(func() {
					k.reply(c, m, rt, nil, errorReply("InternalError", fmt.Sprint(r), []string{fmt.Sprintf("kernel panic while handling %s: %v", m.Header.MsgType, r)}))
				})
			}
		}
	}()
	switch m.Header.MsgType {
	case "kernel_info_request":
		k.reply(c, m, "kernel_info_reply", nil, k.kernelInfo())
	case "shutdown_request":
		k.handleShutdown(c, m)
		stopAfter = true
	case "interrupt_request":
		k.interrupt()
		k.reply(c, m, "interrupt_reply", nil, map[string]any{"status": "ok"})
	case "execute_request":
		if c != shellChan {
			k.logf("control: execute_request is only served on shell; ignored")
			return
		}
		k.handleExecute(m, seq)
	case "complete_request":
		k.handleComplete(c, m)
	case "inspect_request":
		k.handleInspect(c, m)
	case "is_complete_request":
		k.handleIsComplete(c, m)
	case "history_request":
		k.handleHistory(c, m)
	case "comm_info_request":
		k.reply(c, m, "comm_info_reply", nil, map[string]any{"status": "ok", "comms": map[string]any{}})
	case "comm_open":
		k.handleCommOpen(m)
	case "comm_msg", "comm_close":
		// No comm is ever open, so there is nothing to deliver to.
	default:
		// The specification lets kernels ignore messages they do not
		// handle; ipykernel logs them and sends no reply.
		k.logf("%s: unknown message type %q; ignored", c, m.Header.MsgType)
	}
}

// answerMalformed answers a signed request that could not be decoded (m
// holds its identities and header) with an error reply of ename
// "ProtocolError", between status busy and idle; a malformed message that
// is not a request is logged and dropped.
func (k *Kernel) answerMalformed(c channel, m *Message, err error) {
	rt, ok := replyType(m.Header.MsgType)
	if !ok || (c == controlChan && m.Header.MsgType == "execute_request") {
		k.logf("%s: dropping malformed %s: %v", c, m.Header.MsgType, err)
		return
	}
	k.logf("%s: malformed %s, answered with an error: %v", c, m.Header.MsgType, err)
	k.safely(func() {
		k.publish(m, "status", map[string]any{"execution_state": "busy"})
		defer k.publish(m, "status", map[string]any{"execution_state": "idle"})
		content := errorReply("ProtocolError", fmt.Sprintf("malformed %s: %v", m.Header.MsgType, err), nil)
		if m.Header.MsgType == "execute_request" {
			content = withCount(content, k.count)
		}
		k.reply(c, m, rt, nil, content)
	})
}

// safely runs f, logging a panic instead of propagating it (used inside
// deferred recovery, where a second panic would end the process).
func (k *Kernel) safely(f func()) {
	defer func() {
		if r := recover(); r != nil {
			k.logf("recovered panic while recovering: %v", r)
		}
	}()
	f()
}

// replyType maps "x_request" to "x_reply".
func replyType(t string) (string, bool) {
	base, ok := strings.CutSuffix(t, "_request")
	return base + "_reply", ok
}

func errorReply(ename, evalue string, tb []string) map[string]any {
	if tb == nil {
		tb = []string{}
	}
	return map[string]any{"status": "error", "ename": ename, "evalue": evalue, "traceback": tb}
}

// interrupt stops the session's background work (Interrupter) and
// cancels the running cell, if any. The Interrupter goes first: it stops
// the cell itself and counts the interrupt once (repl.Session.Interrupt);
// the cell's context ending after that does not count again.
func (k *Kernel) interrupt() {
	if i, ok := k.sess.(Interrupter); ok {
		i.Interrupt()
	}
	k.runMu.Lock()
	if k.cancelCell != nil {
		k.cancelCell(ErrInterrupted)
	}
	k.runMu.Unlock()
}

func (k *Kernel) handleShutdown(c channel, m *Message) {
	var req struct {
		Restart bool `json:"restart"`
	}
	if err := json.Unmarshal(m.Content, &req); err != nil {
		k.logf("%s: shutdown_request content: %v (treated as restart=false)", c, err)
	}
	k.reply(c, m, "shutdown_reply", nil, map[string]any{"status": "ok", "restart": req.Restart})
}

func (k *Kernel) handleCommOpen(m *Message) {
	var req struct {
		CommID     string `json:"comm_id"`
		TargetName string `json:"target_name"`
	}
	if err := json.Unmarshal(m.Content, &req); err != nil {
		k.logf("shell: comm_open content: %v", err)
		return
	}
	// No comm targets are registered: close it at once, as the
	// specification asks, so the front end does not keep a dangling comm.
	k.publish(m, "comm_close", map[string]any{"comm_id": req.CommID, "data": map[string]any{}})
}

func (k *Kernel) kernelInfo() map[string]any {
	links := []HelpLink{
		{Text: "Go documentation", URL: "https://go.dev/doc/"},
		{Text: "Go standard library", URL: "https://pkg.go.dev/std"},
		{Text: "gnnrepl", URL: "https://pkg.go.dev/github.com/gnnrepl/gnnrepl"},
	}
	links = append(links, k.opts.HelpLinks...)
	banner := k.opts.Banner
	if banner == "" {
		banner = fmt.Sprintf("gnnrepl %s: Go (%s) for graph neural networks", k.opts.ImplementationVersion, runtime.Version())
	}
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       ProtocolVersion,
		"implementation":         "gnnrepl",
		"implementation_version": k.opts.ImplementationVersion,
		"language_info": map[string]any{
			"name":               "go",
			"version":            strings.TrimPrefix(runtime.Version(), "go"),
			"mimetype":           "text/x-go",
			"file_extension":     ".go",
			"pygments_lexer":     "go",
			"codemirror_mode":    "go",
			"nbconvert_exporter": "script",
		},
		"banner":     banner,
		"help_links": links,
		"debugger":   false,
	}
}

func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return "dev"
}

// header returns a fresh header of msgType from this kernel.
func (k *Kernel) header(msgType string) Header {
	return Header{
		MsgID:    newID(),
		Session:  k.session,
		Username: k.username,
		Date:     isoNow(),
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}
}

// reply answers req on channel c.
func (k *Kernel) reply(c channel, req *Message, msgType string, metadata, content any) {
	if err := k.sendHeader(k.socket(c), req, k.header(msgType), metadata, content); err != nil {
		k.logf("%s: sending %s: %v", c, msgType, err)
	}
}

// sendHeader sends one message with header h to the peer that sent parent.
func (k *Kernel) sendHeader(s msgSocket, parent *Message, h Header, metadata, content any) error {
	frames, err := k.sig.encode(parent.Identities, h, parent.RawHeader, metadata, content)
	if err != nil {
		return err
	}
	if k.isClosed() {
		return fmt.Errorf("kernel: socket closed")
	}
	return s.Send(frames)
}

// publish sends one IOPub message. parent may be nil (status "starting").
// It reports encoding errors to the caller and logs send errors.
func (k *Kernel) publish(parent *Message, msgType string, content any) error {
	var praw json.RawMessage
	if parent != nil {
		praw = parent.RawHeader
	}
	topic := []byte("kernel." + k.session + "." + msgType)
	frames, err := k.sig.encode([][]byte{topic}, k.header(msgType), praw, nil, content)
	if err != nil {
		k.logf("iopub: %v", err)
		return err
	}
	k.pubMu.Lock()
	defer k.pubMu.Unlock()
	if k.isClosed() {
		return nil
	}
	k.iopub.Send(frames)
	return nil
}

// welcome is JEP 65's iopub_welcome message, sent to each new IOPub
// subscriber, so that a front end knows at once that IOPub is connected
// (jupyter_client waits for any IOPub message before declaring the kernel
// ready); front ends that do not know the type ignore it.
func (k *Kernel) welcome(topic string) [][]byte {
	frames, err := k.sig.encode([][]byte{[]byte("kernel." + k.session + ".iopub_welcome")}, k.header("iopub_welcome"), nil, nil, map[string]any{"subscription": topic})
	if err != nil {
		return nil
	}
	return frames
}

// dropNotice is the stderr stream that tells a subscriber which stalled
// (pubSocket) how much output it did not receive.
func (k *Kernel) dropNotice(parent []byte, msgs int, bytes int64) [][]byte {
	text := fmt.Sprintf("\n[gnnrepl kernel: %d output messages (%d bytes of output) were not delivered here: this front end read nothing for %v while they were sent]\n",
		msgs, bytes, pubStall)
	frames, err := k.sig.encode([][]byte{[]byte("kernel." + k.session + ".stream")}, k.header("stream"), parent, nil,
		map[string]any{"name": "stderr", "text": text})
	if err != nil {
		return nil
	}
	return frames
}

// waitOutputRoom waits until IOPub can queue an output message for every
// subscriber that reads (pubSocket.WaitRoom): output waits for a slow
// front end instead of being dropped.
func (k *Kernel) waitOutputRoom() {
	if k.iopub != nil {
		k.iopub.WaitRoom()
	}
}

// logf writes one line to the kernel's log.
func (k *Kernel) logf(format string, args ...any) {
	k.logMu.Lock()
	defer k.logMu.Unlock()
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(k.opts.Log, "[gnnrepl kernel] %s\n", strings.TrimRight(msg, "\n"))
}

// forward sends captured process output to the latest cell. It reports
// false when no cell has run yet.
func (k *Kernel) forward(name string, p []byte) bool {
	c := k.outTarget.Load()
	if c == nil || k.isClosed() {
		return false
	}
	c.write(name, p)
	return true
}
