package kernel

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnnrepl/gnnrepl/kernel/internal/prebind"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// This file holds the kernel's ZeroMQ sockets: ROUTER (shell, control,
// stdin, heartbeat) and PUB (IOPub), built on zmq4's ZMTP connection
// (zmq4.Open, Conn.SendMsg) over connections that buffer
// reads and send each message with one write.
//
// Messages are read by peer.recv, not zmq4's Conn.RecvMsg, so that a
// frame's memory follows its arrived bytes rather than its announced size.
//
// zmq4's own sockets (v0.17.0) are not used because: they issue two
// unbuffered system calls per frame in each direction (a 7-frame Jupyter
// message costs 14 writes and 14 reads, most of a request's latency); the
// PUB socket's writer goroutine is never stopped (one goroutine leaked per
// kernel) and cannot tell when its queue is written, which shutdown needs
// to deliver the last status; a slow subscriber delays all others; the
// accept loop performs each handshake inline, so a peer that never
// completes it blocks every later one; and a peer announcing an unknown
// socket type panics inside a library goroutine, killing the process.

// msgSocket is what the kernel's loops need of a ROUTER socket.
type msgSocket interface {
	// Recv returns the next message: the peer's identity, then its frames.
	Recv() ([][]byte, error)
	// Send routes frames[1:] to the peer whose identity is frames[0]; a
	// message for an unknown peer is dropped, as ZeroMQ does.
	Send(frames [][]byte) error
	Addr() net.Addr
	Close() error
}

var errSocketClosed = errors.New("kernel: socket closed")

// bufConn buffers a connection's reads and writes. Writes accumulate until
// Flush, or until the next Read (so a handshake's request is sent before
// its reply is awaited). Every byte read passes through a frameGuard,
// which fails the read that would deliver the size of a frame or message
// larger than the limit: zmq4 (Conn.read, v0.17.0) allocates a frame's
// body as soon as it has read the size, and has no maximum-size option
// (libzmq's ZMQ_MAXMSGSIZE), so the check must happen beneath it.
type bufConn struct {
	net.Conn
	r  *bufio.Reader
	g  frameGuard // used by the one goroutine that reads
	mu sync.Mutex
	w  *bufio.Writer
}

func newBufConn(c net.Conn, limit int64) *bufConn {
	return &bufConn{Conn: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10),
		g: frameGuard{limit: limit, skip: zmtpGreetingLen}}
}

func (c *bufConn) Read(p []byte) (int, error) {
	if c.g.err != nil {
		return 0, c.g.err
	}
	if err := c.Flush(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	if gerr := c.g.scan(p[:n]); gerr != nil {
		// Deliver nothing of this read: with all the size bytes, io.ReadFull
		// would drop the error and zmq4 allocate.
		return 0, gerr
	}
	return n, err
}

// ErrMessageTooLarge is wrapped by the error that ends a connection whose
// peer announced a frame or a multipart message larger than
// Options.MaxMessageSize.
var ErrMessageTooLarge = errors.New("message larger than the kernel's maximum size")

// zmtpGreetingLen is the size of a ZMTP 3 greeting, which precedes the
// frames.
const zmtpGreetingLen = 64

// frameOverhead is what a frame costs in memory beyond its body (the
// slice header in the message and the allocation's rounding), counted
// against the limit so that a stream of empty frames is bounded too.
const frameOverhead = 64

// handshakeLimit bounds the frames of the ZMTP handshake (the READY
// command's metadata is a few dozen bytes).
const handshakeLimit = 64 << 10

// frameGuard follows the ZMTP 3 byte stream a peer sends (RFC 23: the
// 64-byte greeting, then frames of a flags byte, a 1- or 8-byte size and
// the body) and refuses, as soon as a frame's size has been read, a frame
// that would take the message being received (the frames joined by the
// MORE flag) beyond limit bytes.
type frameGuard struct {
	limit int64
	err   error

	state   int // guardSkip (greeting or body), guardFlags, guardSize
	skip    int64
	flags   byte
	size    [8]byte
	sizeN   int
	sizeLen int
	msg     int64 // bytes (with overheads) of the message so far
}

const (
	guardSkip = iota
	guardFlags
	guardSize
)

// ZMTP frame flags.
const (
	zmtpMore    = 0x01
	zmtpLong    = 0x02
	zmtpCommand = 0x04
)

// scan advances over p, the next bytes of the stream, and returns the
// error (kept in g.err) for an oversized frame.
func (g *frameGuard) scan(p []byte) error {
	for len(p) > 0 {
		switch g.state {
		case guardSkip:
			n := min(int64(len(p)), g.skip)
			g.skip -= n
			p = p[n:]
			if g.skip == 0 {
				g.state = guardFlags
			}
		case guardFlags:
			g.flags = p[0]
			p = p[1:]
			g.sizeN, g.sizeLen = 0, 1
			if g.flags&zmtpLong != 0 {
				g.sizeLen = 8
			}
			g.state = guardSize
		case guardSize:
			n := copy(g.size[g.sizeN:g.sizeLen], p)
			g.sizeN += n
			p = p[n:]
			if g.sizeN < g.sizeLen {
				continue
			}
			var size uint64
			for _, b := range g.size[:g.sizeLen] {
				size = size<<8 | uint64(b)
			}
			if size > uint64(g.limit) || g.msg+int64(size)+frameOverhead > g.limit {
				g.err = fmt.Errorf("%w: a frame of %d bytes after %d bytes of its message exceeds the limit of %d bytes",
					ErrMessageTooLarge, size, g.msg, g.limit)
				return g.err
			}
			if g.flags&zmtpMore != 0 {
				g.msg += int64(size) + frameOverhead
			} else {
				g.msg = 0
			}
			g.skip = int64(size)
			g.state = guardSkip
			if size == 0 {
				g.state = guardFlags
			}
		}
	}
	return nil
}

func (c *bufConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.w.Write(p)
}

func (c *bufConn) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.w.Buffered() == 0 {
		return nil
	}
	return c.w.Flush()
}

// peer is one accepted ZMTP connection.
type peer struct {
	id   string
	conn *zmq4.Conn
	bc   *bufConn

	sendMu sync.Mutex
}

// recvChunk is the most of a frame's body read ahead of its arrival: a
// frame's buffer starts at this size (or the frame's, if smaller) and
// doubles as bytes come, never beyond the announced size.
const recvChunk = 64 << 10

// largeFramesReading counts the frames larger than recvChunk whose bodies
// peer.recv is reading now, for tests that wait until the kernel has read
// sizes it has not received the bodies of.
var largeFramesReading atomic.Int64

// recv reads the next ZMTP message after the handshake and reports
// whether it is a command; it answers a PING with a PONG. It replaces
// zmq4's Conn.RecvMsg, which allocates a frame's whole body as soon as it
// has read the frame's size (Conn.read, v0.17.0): a peer that announces a
// frame just under Options.MaxMessageSize and sends nothing more would
// make the kernel reserve that much per connection, before any message
// is authenticated. Here a frame costs the bytes that have arrived (at
// most twice them while its buffer grows), and the frameGuard beneath
// bounds the size and the message.
func (p *peer) recv() (frames [][]byte, cmd bool, err error) {
	r := p.bc
	var hdr [9]byte
	for more := true; more; {
		if _, err := io.ReadFull(r, hdr[:2]); err != nil {
			return nil, false, err
		}
		fl := hdr[0]
		more = fl&zmtpMore != 0
		cmd = cmd || fl&zmtpCommand != 0
		size := uint64(hdr[1])
		if fl&zmtpLong != 0 {
			if _, err := io.ReadFull(r, hdr[2:9]); err != nil {
				return nil, false, err
			}
			size = binary.BigEndian.Uint64(hdr[1:9])
		}
		large := size > recvChunk
		if large {
			largeFramesReading.Add(1)
		}
		body, err := readGrowing(r, size)
		if large {
			largeFramesReading.Add(-1)
		}
		if err != nil {
			return nil, false, err
		}
		frames = append(frames, body)
	}
	if cmd {
		if len(frames) != 1 {
			return nil, true, fmt.Errorf("zmtp: a command of %d frames", len(frames))
		}
		name, body, err := parseCommand(frames[0])
		if err != nil {
			return nil, true, err
		}
		if name == zmq4.CmdPing {
			p.sendMu.Lock()
			err = p.conn.SendCmd(zmq4.CmdPong, nil)
			if err == nil {
				err = p.bc.Flush()
			}
			p.sendMu.Unlock()
			if err != nil {
				return nil, true, err
			}
		}
		return [][]byte{body}, true, nil
	}
	return frames, false, nil
}

// readGrowing reads a body of size bytes from r into a buffer that grows
// (doubling, capped at size) as the bytes arrive.
func readGrowing(r io.Reader, size uint64) ([]byte, error) {
	if size == 0 {
		return []byte{}, nil
	}
	if size > 1<<62 {
		return nil, fmt.Errorf("%w: a frame of %d bytes", ErrMessageTooLarge, size)
	}
	n := int(size)
	buf := make([]byte, 0, min(n, recvChunk))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(n, 2*cap(buf)))
			copy(grown, buf)
			buf = grown
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil {
			if len(buf) < n {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, err
			}
		}
	}
	return buf, nil
}

// parseCommand splits a ZMTP command frame (RFC 23: a name of 1 to 255
// bytes after its length byte, then the data).
func parseCommand(f []byte) (name string, data []byte, err error) {
	if len(f) < 1 || int(f[0]) == 0 || len(f) < 1+int(f[0]) {
		return "", nil, errors.New("zmtp: malformed command")
	}
	return string(f[1 : 1+f[0]]), f[1+f[0]:], nil
}

// send writes one message and flushes it.
func (p *peer) send(frames [][]byte) error {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	if err := p.conn.SendMsg(zmq4.NewMsgFrom(frames...)); err != nil {
		return err
	}
	return p.bc.Flush()
}

// listener accepts connections and performs ZMTP handshakes, each on its
// own goroutine with a deadline.
type listener struct {
	ln    net.Listener
	typ   zmq4.SocketType
	logf  func(string, ...any)
	name  string
	limit int64 // largest message a peer may send

	mu      sync.Mutex
	opening map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
	onPeer  func(*peer) // runs on the connection's goroutine until it ends
}

// handshakeTimeout bounds a ZMTP greeting and handshake.
const handshakeTimeout = 10 * time.Second

func listen(network, addr string, typ zmq4.SocketType, name string, limit int64, logf func(string, ...any), onPeer func(*peer)) (*listener, error) {
	if limit <= 0 {
		limit = DefaultMaxMessageSize
	}
	// The connection file's ports listen from an init function
	// (kernel/internal/prebind), so that a client's first connect
	// succeeds; take those sockets.
	var ln net.Listener
	if f := prebind.Take(network, addr); f != nil {
		ln, _ = net.FileListener(f) // nil on error: bind again below
		f.Close()
	}
	if ln == nil {
		var err error
		if ln, err = net.Listen(network, addr); err != nil {
			return nil, err
		}
	}
	l := &listener{ln: ln, typ: typ, name: name, limit: limit, logf: logf, opening: map[net.Conn]struct{}{}, onPeer: onPeer}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

func (l *listener) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if l.isClosed() {
				return
			}
			l.logf("%s: accept: %v", l.name, err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			c.Close()
			return
		}
		l.opening[c] = struct{}{}
		l.wg.Add(1)
		l.mu.Unlock()
		go l.open(c)
	}
}

func (l *listener) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

func (l *listener) open(c net.Conn) {
	defer l.wg.Done()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	bc := newBufConn(c, min(l.limit, handshakeLimit))
	var zc *zmq4.Conn
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil { // zmq4 panics on unknown peer socket types
				err = fmt.Errorf("handshake panicked: %v", r)
			}
		}()
		c.SetDeadline(time.Now().Add(handshakeTimeout))
		zc, err = zmq4.Open(bc, null.Security(), l.typ, zmq4.SocketIdentity(newID()), true, nil)
		c.SetDeadline(time.Time{})
		return err
	}()
	l.mu.Lock()
	delete(l.opening, c)
	closed := l.closed
	l.mu.Unlock()
	if err != nil {
		l.logf("%s: connection from %s: %v", l.name, c.RemoteAddr(), err)
		c.Close()
		return
	}
	if closed {
		c.Close()
		return
	}
	bc.g.limit = l.limit
	id := zc.Peer.Meta["Identity"]
	p := &peer{id: id, conn: zc, bc: bc}
	func() {
		defer func() {
			if r := recover(); r != nil {
				l.logf("%s: recovered panic serving a connection: %v\n%s", l.name, r, debug.Stack())
			}
		}()
		l.onPeer(p)
	}()
	c.Close()
}

// refused logs the end of a connection whose peer sent an oversized
// message (other receive errors are a peer going away, not logged).
func (l *listener) refused(p *peer, err error) {
	if errors.Is(err, ErrMessageTooLarge) {
		l.logf("%s: dropping the connection from %s: %v", l.name, p.bc.RemoteAddr(), err)
	}
}

// Close stops accepting, aborts handshakes in progress and waits for the
// connection goroutines, which the owner ends by closing their connections.
func (l *listener) close(closePeers func()) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	for c := range l.opening {
		c.Close()
	}
	l.mu.Unlock()
	err := l.ln.Close()
	closePeers()
	l.wg.Wait()
	return err
}

// routerSocket is a ZeroMQ ROUTER socket: messages are received prefixed
// with the sending peer's identity and sent to the peer named by the first
// frame. A peer connecting with the identity of a connected one takes its
// place (ZMQ_ROUTER_HANDOVER), so a front end that reconnects keeps its
// routing, stdin included.
type routerSocket struct {
	l  *listener
	in chan [][]byte

	mu    sync.Mutex
	peers map[string]*peer
	done  chan struct{}
}

func listenRouter(network, addr, name string, limit int64, logf func(string, ...any)) (*routerSocket, error) {
	r := &routerSocket{in: make(chan [][]byte, 64), peers: map[string]*peer{}, done: make(chan struct{})}
	l, err := listen(network, addr, zmq4.Router, name, limit, logf, r.serve)
	if err != nil {
		return nil, err
	}
	r.l = l
	return r, nil
}

func (r *routerSocket) serve(p *peer) {
	r.mu.Lock()
	if p.id == "" {
		p.id = newID()
	}
	if old := r.peers[p.id]; old != nil {
		old.conn.Close()
	}
	r.peers[p.id] = p
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		if r.peers[p.id] == p {
			delete(r.peers, p.id)
		}
		r.mu.Unlock()
	}()
	for {
		msg, cmd, err := p.recv()
		if err != nil {
			r.l.refused(p, err)
			return
		}
		if cmd {
			continue // ZMTP command (PING, answered by recv)
		}
		frames := append([][]byte{[]byte(p.id)}, msg...)
		select {
		case r.in <- frames:
		case <-r.done:
			return
		}
	}
}

func (r *routerSocket) Recv() ([][]byte, error) {
	select {
	case f := <-r.in:
		return f, nil
	case <-r.done:
		return nil, errSocketClosed
	}
}

func (r *routerSocket) Send(frames [][]byte) error {
	if len(frames) == 0 {
		return nil
	}
	r.mu.Lock()
	p := r.peers[string(frames[0])]
	r.mu.Unlock()
	if p == nil {
		return nil // unroutable: dropped, as a ZeroMQ ROUTER does
	}
	return p.send(frames[1:])
}

func (r *routerSocket) Addr() net.Addr { return r.l.ln.Addr() }

func (r *routerSocket) Close() error {
	select {
	case <-r.done:
		return nil
	default:
	}
	close(r.done)
	return r.l.close(func() {
		r.mu.Lock()
		for _, p := range r.peers {
			p.conn.Close()
		}
		r.mu.Unlock()
	})
}

// pubSocket is a ZeroMQ PUB socket with a queue and a writer goroutine per
// subscriber and prefix-matched subscriptions. A queue holds at most
// pubHWM output messages (ZeroMQ's high water mark), so memory is bounded.
// The cell's output waits for room (WaitRoom) rather than being dropped,
// so a front end that reads slowly slows the cell down and receives all of
// its output. Only a subscriber that stalls (takes no message off a full
// queue for pubStall) loses output messages, and then it is told: the next
// message queued for it is preceded by a stderr stream saying how many
// messages and bytes it missed (the notice function). Status,
// execute_input, execute_result, error and comm messages are always
// queued, so a front end never misses the idle that ends a request.
type pubSocket struct {
	l *listener
	// welcome, when set, builds a message sent to a subscriber right after
	// its first subscription (JEP 65's iopub_welcome).
	welcome func(topic string) [][]byte
	// notice, when set, builds the stream message that tells a subscriber
	// it lost msgs output messages holding bytes bytes of output, under
	// the request whose header is parent.
	notice func(parent []byte, msgs int, bytes int64) [][]byte

	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

type subscriber struct {
	p *peer

	mu      sync.Mutex
	cond    *sync.Cond
	topics  map[string]struct{}
	queue   [][][]byte
	writing bool
	closed  bool
	// lastSent is when the writer last finished a message (or when the
	// subscriber connected): a full queue with lastSent older than
	// pubStall is a stalled subscriber.
	lastSent time.Time
	// The output messages dropped since the last notice: how many, their
	// output bytes, and the parent header of the last.
	dropped      int
	droppedBytes int64
	dropParent   []byte
}

// pubHWM is the most output messages a subscriber's queue holds (each
// stream message carries at most maxStreamChunk bytes of text).
const pubHWM = 1000

// pubStall is how long a subscriber with a full queue may take no
// message before output messages for it are dropped (and counted) instead
// of waited for.
var pubStall = 10 * time.Second // a variable for tests

// droppable reports whether an IOPub message (by its topic,
// "kernel.<session>.<msg_type>") may be dropped at the high water mark.
func droppable(topic string) bool {
	for _, t := range []string{".stream", ".display_data", ".update_display_data", ".clear_output"} {
		if strings.HasSuffix(topic, t) {
			return true
		}
	}
	return false
}

func listenPub(network, addr string, limit int64, logf func(string, ...any), welcome func(topic string) [][]byte) (*pubSocket, error) {
	ps := &pubSocket{subs: map[*subscriber]struct{}{}, welcome: welcome}
	l, err := listen(network, addr, zmq4.Pub, "iopub", limit, logf, ps.serve)
	if err != nil {
		return nil, err
	}
	ps.l = l
	return ps, nil
}

func (ps *pubSocket) serve(p *peer) {
	s := &subscriber{p: p, topics: map[string]struct{}{}, lastSent: time.Now()}
	s.cond = sync.NewCond(&s.mu)
	ps.mu.Lock()
	ps.subs[s] = struct{}{}
	ps.mu.Unlock()
	defer func() {
		ps.mu.Lock()
		delete(ps.subs, s)
		ps.mu.Unlock()
		s.close()
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.write()
	}()
	defer func() { <-done }()
	defer s.close()
	for {
		msg, cmd, err := p.recv()
		if err != nil {
			ps.l.refused(p, err)
			return
		}
		if cmd || len(msg) != 1 || len(msg[0]) == 0 {
			continue
		}
		f := msg[0]
		s.mu.Lock()
		first := len(s.topics) == 0
		switch f[0] {
		case 1:
			s.topics[string(f[1:])] = struct{}{}
		case 0:
			delete(s.topics, string(f[1:]))
			first = false
		default:
			first = false
		}
		if first && f[0] == 1 && ps.welcome != nil {
			if w := ps.welcome(string(f[1:])); w != nil {
				s.queue = append(s.queue, w)
			}
		}
		s.mu.Unlock()
		s.cond.Broadcast()
	}
}

func (s *subscriber) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cond.Broadcast()
	s.p.conn.Close()
}

func (s *subscriber) write() {
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closed {
			s.cond.Wait()
		}
		if s.closed {
			s.queue = nil
			s.mu.Unlock()
			s.cond.Broadcast()
			return
		}
		frames := s.queue[0]
		s.queue = s.queue[1:]
		s.writing = true
		s.mu.Unlock()
		err := s.p.send(frames)
		s.mu.Lock()
		s.writing = false
		s.lastSent = time.Now()
		s.mu.Unlock()
		s.cond.Broadcast()
		if err != nil {
			s.close()
		}
	}
}

// WaitRoom blocks until the queue of every subscriber holds fewer than
// pubHWM messages, or the subscriber is closed or stalled. The kernel
// calls it before it publishes output (outside any lock Send needs), so
// output waits for a slow front end instead of being dropped.
func (ps *pubSocket) WaitRoom() {
	for _, s := range ps.subscribers() {
		s.mu.Lock()
		for len(s.queue) >= pubHWM && !s.closed {
			left := pubStall - time.Since(s.lastSent)
			if left <= 0 {
				break // stalled: Send drops and counts
			}
			t := time.AfterFunc(left, s.cond.Broadcast)
			s.cond.Wait()
			t.Stop()
		}
		s.mu.Unlock()
	}
}

// Send queues frames (frames[0] is the topic) for every subscriber with a
// subscription that prefixes the topic. It never blocks on a subscriber:
// an output message for a subscriber whose queue is full (a stalled one,
// when the publisher called WaitRoom) is dropped and counted, and the next
// message queued for it is preceded by the notice of what it missed.
func (ps *pubSocket) Send(frames [][]byte) {
	topic := string(frames[0])
	for _, s := range ps.subscribers() {
		s.mu.Lock()
		if !s.closed && s.subscribed(topic) {
			if len(s.queue) >= pubHWM && droppable(topic) {
				if s.dropped == 0 {
					ps.l.logf("iopub: a subscriber took no message for %v; dropping output beyond %d queued messages (it is told how much)", pubStall, pubHWM)
				}
				s.dropped++
				s.droppedBytes += outputBytes(topic, frames)
				if len(frames) > 5 {
					s.dropParent = frames[4]
				}
			} else {
				if s.dropped > 0 && ps.notice != nil {
					if n := ps.notice(s.dropParent, s.dropped, s.droppedBytes); n != nil {
						s.queue = append(s.queue, n)
					}
					s.dropped, s.droppedBytes, s.dropParent = 0, 0, nil
				}
				s.queue = append(s.queue, frames)
			}
		}
		s.mu.Unlock()
		s.cond.Broadcast()
	}
}

// outputBytes is the size of the output an IOPub message carries: a
// stream's text, or the whole content of a display message.
func outputBytes(topic string, frames [][]byte) int64 {
	if len(frames) < 7 {
		return 0
	}
	if strings.HasSuffix(topic, ".stream") {
		var c struct{ Text string }
		if json.Unmarshal(frames[6], &c) == nil {
			return int64(len(c.Text))
		}
	}
	return int64(len(frames[6]))
}

func (ps *pubSocket) subscribers() []*subscriber {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	out := make([]*subscriber, 0, len(ps.subs))
	for s := range ps.subs {
		out = append(out, s)
	}
	return out
}

// subscribed reports whether topic matches a subscription; s.mu is held.
func (s *subscriber) subscribed(topic string) bool {
	for k := range s.topics {
		if strings.HasPrefix(topic, k) {
			return true
		}
	}
	return false
}

// Subscribed reports whether any connected subscriber has a subscription.
func (ps *pubSocket) Subscribed() bool {
	for _, s := range ps.subscribers() {
		s.mu.Lock()
		n := len(s.topics)
		s.mu.Unlock()
		if n > 0 {
			return true
		}
	}
	return false
}

// Flush waits until every subscriber's queue has been written, or d has
// passed.
func (ps *pubSocket) Flush(d time.Duration) {
	deadline := time.Now().Add(d)
	for _, s := range ps.subscribers() {
		timer := time.AfterFunc(time.Until(deadline), s.cond.Broadcast)
		s.mu.Lock()
		for (len(s.queue) > 0 || s.writing) && !s.closed && time.Now().Before(deadline) {
			s.cond.Wait()
		}
		s.mu.Unlock()
		timer.Stop()
	}
}

func (ps *pubSocket) Addr() net.Addr { return ps.l.ln.Addr() }

func (ps *pubSocket) Close() error {
	return ps.l.close(func() {
		for _, s := range ps.subscribers() {
			s.close()
		}
	})
}
