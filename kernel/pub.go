package kernel

import (
	"fmt"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// pubSocket is the IOPub PUB socket: ZMTP connections opened with zmq4.Open,
// a queue and a writer goroutine per subscriber, and prefix-matched
// subscriptions, as a ZeroMQ PUB socket behaves.
//
// zmq4's own PUB socket (v0.17.0) is not used because its writer goroutine
// is never stopped by Close (one goroutine leaked per kernel), it sends to
// every subscriber from one goroutine (a stalled front end delays the
// others), and it cannot tell when its queue has been written out, which
// shutdown needs to deliver the last status message.
type pubSocket struct {
	ln      net.Listener
	network string
	logf    func(format string, args ...any)

	mu      sync.Mutex
	subs    map[*subscriber]struct{}
	opening map[net.Conn]struct{} // connections still in the handshake
	closed  bool
	wg      sync.WaitGroup
}

// subscriber is one connected SUB socket.
type subscriber struct {
	conn *zmq4.Conn

	mu      sync.Mutex
	cond    *sync.Cond
	topics  map[string]struct{}
	queue   [][][]byte
	writing bool // a message has been taken from queue and is being written
	closed  bool
	dropped int
}

// pubHWM is the per-subscriber queue bound (ZeroMQ's default send high
// water mark); beyond it messages to that subscriber are dropped, as
// ZeroMQ's PUB does, so one stalled front end cannot exhaust memory.
const pubHWM = 1000 * 10

func listenPub(network, addr string, logf func(string, ...any)) (*pubSocket, error) {
	ln, err := net.Listen(network, addr)
	if err != nil {
		return nil, err
	}
	p := &pubSocket{ln: ln, network: network, logf: logf, subs: map[*subscriber]struct{}{}, opening: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the bound address.
func (p *pubSocket) Addr() net.Addr { return p.ln.Addr() }

func (p *pubSocket) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			p.mu.Lock()
			closed := p.closed
			p.mu.Unlock()
			if closed {
				return
			}
			p.logf("iopub: accept: %v", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			return
		}
		p.opening[c] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.open(c)
	}
}

// open performs the ZMTP handshake on its own goroutine, so that a peer
// that never completes it cannot block other front ends.
func (p *pubSocket) open(c net.Conn) {
	defer p.wg.Done()
	var zc *zmq4.Conn
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil { // zmq4 panics on unknown peer socket types
				err = fmt.Errorf("handshake panicked: %v", r)
			}
		}()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		zc, err = zmq4.Open(c, null.Security(), zmq4.Pub, zmq4.SocketIdentity(newID()), true, nil)
		c.SetDeadline(time.Time{})
		return err
	}()
	p.mu.Lock()
	delete(p.opening, c)
	p.mu.Unlock()
	if err != nil {
		p.logf("iopub: connection from %s: %v", c.RemoteAddr(), err)
		c.Close()
		return
	}
	s := &subscriber{conn: zc, topics: map[string]struct{}{}}
	s.cond = sync.NewCond(&s.mu)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		zc.Close()
		return
	}
	p.subs[s] = struct{}{}
	p.wg.Add(1)
	p.mu.Unlock()
	go p.write(s)
	p.read(s)
}

// read applies subscription messages until the connection ends.
func (p *pubSocket) read(s *subscriber) {
	defer p.drop(s)
	defer func() {
		if r := recover(); r != nil {
			p.logf("iopub: reading from subscriber: %v\n%s", r, debug.Stack())
		}
	}()
	for {
		msg, err := s.conn.RecvMsg()
		if err != nil {
			return
		}
		if len(msg.Frames) != 1 || len(msg.Frames[0]) == 0 {
			continue
		}
		f := msg.Frames[0]
		s.mu.Lock()
		switch f[0] {
		case 1:
			s.topics[string(f[1:])] = struct{}{}
		case 0:
			delete(s.topics, string(f[1:]))
		}
		s.mu.Unlock()
	}
}

// write sends s's queue in order until s is closed.
func (p *pubSocket) write(s *subscriber) {
	defer p.wg.Done()
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
		err := s.conn.SendMsg(zmq4.NewMsgFrom(frames...))
		s.mu.Lock()
		s.writing = false
		s.mu.Unlock()
		s.cond.Broadcast()
		if err != nil {
			p.drop(s)
		}
	}
}

// drop closes and forgets a subscriber.
func (p *pubSocket) drop(s *subscriber) {
	p.mu.Lock()
	delete(p.subs, s)
	p.mu.Unlock()
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	s.cond.Broadcast()
	if !already {
		s.conn.Close()
	}
}

// Send queues frames (frames[0] is the topic) for every subscriber whose
// subscriptions include a prefix of the topic. It never blocks on a slow
// subscriber.
func (p *pubSocket) Send(frames [][]byte) {
	topic := string(frames[0])
	p.mu.Lock()
	subs := make([]*subscriber, 0, len(p.subs))
	for s := range p.subs {
		subs = append(subs, s)
	}
	p.mu.Unlock()
	for _, s := range subs {
		s.mu.Lock()
		if !s.closed && s.subscribed(topic) {
			if len(s.queue) >= pubHWM {
				s.dropped++
				if s.dropped == 1 {
					p.logf("iopub: a subscriber is not reading; dropping messages beyond %d queued", pubHWM)
				}
			} else {
				s.queue = append(s.queue, frames)
			}
		}
		s.mu.Unlock()
		s.cond.Broadcast()
	}
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
func (p *pubSocket) Subscribed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for s := range p.subs {
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
func (p *pubSocket) Flush(d time.Duration) {
	deadline := time.Now().Add(d)
	p.mu.Lock()
	subs := make([]*subscriber, 0, len(p.subs))
	for s := range p.subs {
		subs = append(subs, s)
	}
	p.mu.Unlock()
	for _, s := range subs {
		timer := time.AfterFunc(time.Until(deadline), s.cond.Broadcast)
		s.mu.Lock()
		for (len(s.queue) > 0 || s.writing) && !s.closed && time.Now().Before(deadline) {
			s.cond.Wait()
		}
		s.mu.Unlock()
		timer.Stop()
	}
}

// Close closes the listener and every connection and waits for the
// socket's goroutines.
func (p *pubSocket) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	subs := make([]*subscriber, 0, len(p.subs))
	for s := range p.subs {
		subs = append(subs, s)
	}
	for c := range p.opening {
		c.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	for _, s := range subs {
		p.drop(s)
	}
	p.wg.Wait()
	return err
}
