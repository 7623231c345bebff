package kernel

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// TestPubHighWaterMark: a subscriber that stops reading loses output
// messages beyond pubHWM, never status messages, and does not block Send;
// WaitRoom gives up on it after pubStall; the next message queued for it
// is preceded by the notice of what it lost.
func TestPubHighWaterMark(t *testing.T) {
	defer func(d time.Duration) { pubStall = d }(pubStall)
	pubStall = 100 * time.Millisecond
	log := &syncBuilder{}
	ps, err := listenPub("tcp", "127.0.0.1:0", 0, func(f string, a ...any) { log.Write([]byte(f)) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	var noticed struct {
		msgs  int
		bytes int64
	}
	notice := [][]byte{[]byte("kernel.k.stream"), []byte(delimiter), nil, []byte("{}"), []byte("{}"), []byte("{}"), []byte(`{"name":"stderr","text":"notice"}`)}
	ps.notice = func(parent []byte, msgs int, bytes int64) [][]byte {
		noticed.msgs, noticed.bytes = msgs, bytes
		return notice
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
	stream[6] = []byte(`{"name":"stdout","text":"` + string(chunk) + `"}`)
	start := time.Now()
	for range 3 * pubHWM {
		ps.WaitRoom()
		ps.Send(stream)
	}
	if d := time.Since(start); d < pubStall {
		t.Errorf("WaitRoom did not wait for the stalled subscriber (%v)", d)
	}
	s := ps.subscribers()[0]
	s.mu.Lock()
	dropped, droppedBytes := s.dropped, s.droppedBytes
	s.mu.Unlock()
	ps.Send(status)
	s.mu.Lock()
	n := len(s.queue)
	last, beforeLast := s.queue[n-1], s.queue[n-2]
	s.mu.Unlock()
	if dropped == 0 || n > pubHWM+2 {
		t.Errorf("queue %d, dropped %d", n, dropped)
	}
	if string(last[0]) != "kernel.k.status" {
		t.Errorf("status was not queued beyond the high water mark")
	}
	if string(beforeLast[6]) != string(notice[6]) || noticed.msgs != dropped || noticed.bytes != int64(dropped)*int64(len(chunk)) || droppedBytes != noticed.bytes {
		t.Errorf("notice %q of %d messages, %d bytes; dropped %d", beforeLast[6], noticed.msgs, noticed.bytes, dropped)
	}
	sub.Close()
	ps.Close()
}

// TestPubWaitRoom: a subscriber that reads, more slowly than the publisher
// sends, receives every output message when the publisher waits for room.
func TestPubWaitRoom(t *testing.T) {
	ps, err := listenPub("tcp", "127.0.0.1:0", 0, func(string, ...any) {}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	sub := zmq4.NewSub(context.Background())
	defer sub.Close()
	if err := sub.Dial("tcp://" + ps.Addr().String()); err != nil {
		t.Fatal(err)
	}
	sub.SetOption(zmq4.OptionSubscribe, "")
	for !ps.Subscribed() {
		time.Sleep(time.Millisecond)
	}
	const n = 3 * pubHWM
	got := make(chan int)
	go func() {
		k := 0
		for k < n {
			if _, err := sub.Recv(); err != nil {
				break
			}
			k++
			if k%100 == 0 {
				time.Sleep(time.Millisecond) // slower than the sender
			}
		}
		got <- k
	}()
	stream := [][]byte{[]byte("kernel.k.stream"), []byte(delimiter), nil, []byte("{}"), []byte("{}"), []byte("{}"), bytes.Repeat([]byte("x"), 4<<10)}
	for range n {
		ps.WaitRoom()
		ps.Send(stream)
	}
	select {
	case k := <-got:
		if k != n {
			t.Errorf("received %d of %d messages", k, n)
		}
	case <-time.After(testTimeout):
		t.Fatal("the subscriber did not receive every message")
	}
}
