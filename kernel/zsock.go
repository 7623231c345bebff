package kernel

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// This file holds the kernel's ZeroMQ sockets: ROUTER (shell, control,
// stdin, heartbeat) and PUB (IOPub), built on zmq4's ZMTP connection
// (zmq4.Open, Conn.SendMsg, Conn.RecvMsg) over connections that buffer
// reads and send each message with one write.
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
// its reply is awaited).
type bufConn struct {
	net.Conn
	r  *bufio.Reader
	mu sync.Mutex
	w  *bufio.Writer
}

func newBufConn(c net.Conn) *bufConn {
	return &bufConn{Conn: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10)}
}

func (c *bufConn) Read(p []byte) (int, error) {
	if err := c.Flush(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
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
	ln   net.Listener
	typ  zmq4.SocketType
	logf func(string, ...any)
	name string

	mu      sync.Mutex
	opening map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
	onPeer  func(*peer) // runs on the connection's goroutine until it ends
}

// handshakeTimeout bounds a ZMTP greeting and handshake.
const handshakeTimeout = 10 * time.Second

func listen(network, addr string, typ zmq4.SocketType, name string, logf func(string, ...any), onPeer func(*peer)) (*listener, error) {
	ln, err := net.Listen(network, addr)
	if err != nil {
		return nil, err
	}
	l := &listener{ln: ln, typ: typ, name: name, logf: logf, opening: map[net.Conn]struct{}{}, onPeer: onPeer}
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
	bc := newBufConn(c)
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

func listenRouter(network, addr, name string, logf func(string, ...any)) (*routerSocket, error) {
	r := &routerSocket{in: make(chan [][]byte, 64), peers: map[string]*peer{}, done: make(chan struct{})}
	l, err := listen(network, addr, zmq4.Router, name, logf, r.serve)
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
		msg, err := p.conn.RecvMsg()
		if err != nil {
			return
		}
		if msg.Type == zmq4.CmdMsg {
			continue // ZMTP command (PING), answered by zmq4
		}
		frames := append([][]byte{[]byte(p.id)}, msg.Frames...)
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
// subscriber and prefix-matched subscriptions. A subscriber whose queue
// holds pubHWM messages loses further output messages (ZeroMQ's high water
// mark), so a stalled front end cannot exhaust memory or delay the others;
// status, execute_input, execute_result, error and comm messages are
// always queued, so a front end never misses the idle that ends a request.
type pubSocket struct {
	l *listener
	// welcome, when set, builds a message sent to a subscriber right after
	// its first subscription (JEP 65's iopub_welcome).
	welcome func(topic string) [][]byte

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
	dropped int
}

const pubHWM = 1000

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

func listenPub(network, addr string, logf func(string, ...any), welcome func(topic string) [][]byte) (*pubSocket, error) {
	ps := &pubSocket{subs: map[*subscriber]struct{}{}, welcome: welcome}
	l, err := listen(network, addr, zmq4.Pub, "iopub", logf, ps.serve)
	if err != nil {
		return nil, err
	}
	ps.l = l
	return ps, nil
}

func (ps *pubSocket) serve(p *peer) {
	s := &subscriber{p: p, topics: map[string]struct{}{}}
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
		msg, err := p.conn.RecvMsg()
		if err != nil {
			return
		}
		if len(msg.Frames) != 1 || len(msg.Frames[0]) == 0 {
			continue
		}
		f := msg.Frames[0]
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
		s.mu.Unlock()
		s.cond.Broadcast()
		if err != nil {
			s.close()
		}
	}
}

// Send queues frames (frames[0] is the topic) for every subscriber with a
// subscription that prefixes the topic. It never blocks on a subscriber.
func (ps *pubSocket) Send(frames [][]byte) {
	topic := string(frames[0])
	for _, s := range ps.subscribers() {
		s.mu.Lock()
		if !s.closed && s.subscribed(topic) {
			if len(s.queue) >= pubHWM && droppable(topic) {
				s.dropped++
				if s.dropped == 1 {
					ps.l.logf("iopub: a subscriber is not reading; dropping messages beyond %d queued", pubHWM)
				}
			} else {
				s.queue = append(s.queue, frames)
			}
		}
		s.mu.Unlock()
		s.cond.Broadcast()
	}
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
