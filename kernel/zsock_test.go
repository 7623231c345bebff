package kernel

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// TestPubHighWaterMark: a subscriber that stops reading loses output
// messages beyond pubHWM, never status messages, and does not block Send.
func TestPubHighWaterMark(t *testing.T) {
	log := &syncBuilder{}
	ps, err := listenPub("tcp", "127.0.0.1:0", 0, func(f string, a ...any) { log.Write([]byte(f)) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub := zmq4.NewSub(context.Background())
	if err := sub.Dial("tcp://" + ps.Addr().String()); err != nil {
		t.Fatal(err)
	}
	sub.SetOption(zmq4.OptionSubscribe, "")
	for !ps.Subscribed() {
		time.Sleep(time.Millisecond)
	}
	// Never Recv: zmq4's SUB stops reading after a few messages, then TCP
	// buffers fill.
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	stream := [][]byte{[]byte("kernel.k.stream"), []byte(delimiter), nil, []byte("{}"), []byte("{}"), []byte("{}"), chunk}
	status := [][]byte{[]byte("kernel.k.status"), []byte(delimiter), nil, []byte("{}"), []byte("{}"), []byte("{}"), []byte(`{"execution_state":"idle"}`)}
	for range 3 * pubHWM {
		ps.Send(stream)
	}
	ps.Send(status)
	s := ps.subscribers()[0]
	s.mu.Lock()
	n, dropped := len(s.queue), s.dropped
	last := s.queue[len(s.queue)-1]
	s.mu.Unlock()
	if dropped == 0 || n > pubHWM+1 {
		t.Errorf("queue %d, dropped %d", n, dropped)
	}
	if string(last[0]) != "kernel.k.status" {
		t.Errorf("status was not queued beyond the high water mark")
	}
	sub.Close()
	ps.Close()
}
