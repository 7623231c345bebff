package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// This file feeds random and adversarial input to the message parser and
// to every socket of a running kernel, which must keep answering. The
// Fuzz functions run their seeds in a normal `go test` and explore with
// `go test -fuzz=FuzzX ./kernel`; TestAdversarialStreams is the bounded,
// deterministic (seeded) run that CI does every time.

// splitFrames cuts fuzz input into frames at NUL bytes.
func splitFrames(raw []byte) [][]byte { return bytes.Split(raw, []byte{0}) }

// checkDecoded checks what decode promises of its result.
func checkDecoded(t *testing.T, m *Message, err error) {
	t.Helper()
	switch {
	case err == nil && m == nil:
		t.Fatal("decode returned neither a message nor an error")
	case err == nil && (m.Header.MsgType == "" || !isJSONObject(m.Content) || !isJSONObject(m.Parent) || !isJSONObject(m.Metadata)):
		t.Fatalf("decode accepted a message without msg_type or with a part that is not an object: %+v", m)
	case err != nil && m != nil && m.Header.MsgType == "":
		t.Fatalf("decode returned a partial message without msg_type: %v", err)
	}
}

// FuzzDecode feeds frames to the message parser, signed with the key
// (so that parsing goes past the signature) or as they come.
func FuzzDecode(f *testing.F) {
	hdr, _ := json.Marshal(Header{MsgID: "1", MsgType: "execute_request", Session: "s", Version: ProtocolVersion})
	f.Add(bytes.Join([][]byte{hdr, []byte("{}"), []byte("{}"), []byte(`{"code":"1"}`)}, []byte{0}), true)
	f.Add([]byte(`{"msg_type":"kernel_info_request","msg_id":7}`+"\x00{}\x00[]\x00{}"), true)
	f.Add([]byte(`{"msg_type":5}`+"\x00{}\x00{}\x00\xff"), true)
	f.Add([]byte("<IDS|MSG>\x00sig\x00{}\x00{}\x00{}\x00{}"), false)
	f.Add([]byte("id\x00<IDS|MSG>"), false)
	f.Fuzz(func(t *testing.T, raw []byte, signed bool) {
		s, _ := newSigner("hmac-sha256", testKey)
		frames := splitFrames(raw)
		if signed {
			for len(frames) < 4 {
				frames = append(frames, []byte("{}"))
			}
			frames = append([][]byte{[]byte("peer"), []byte(delimiter), s.sign(frames[:4]...)}, frames...)
		}
		m, err := s.decode(frames)
		checkDecoded(t, m, err)
	})
}

// FuzzFrameGuard checks that the ZMTP stream follower refuses a stream at
// the same byte whatever the read boundaries.
func FuzzFrameGuard(f *testing.F) {
	f.Add(append(zmtpGreeting(), zmtpMessage([]byte("a"), bytes.Repeat([]byte("b"), 300))...), uint8(3))
	f.Add(append(zmtpGreeting(), zmtpLongHeader(0, 1<<40)...), uint8(0))
	f.Add(append(zmtpGreeting(), bytes.Repeat([]byte{zmtpMore, 0}, 40)...), uint8(7))
	f.Fuzz(func(t *testing.T, stream []byte, chunk uint8) {
		const limit = 2000
		refusedAt := func(step int) int {
			g := frameGuard{limit: limit, skip: zmtpGreetingLen}
			for i := 0; i < len(stream); i += step {
				if err := g.scan(stream[i:min(i+step, len(stream))]); err != nil {
					// Locate the byte within the read.
					g2 := frameGuard{limit: limit, skip: zmtpGreetingLen}
					for j := range stream {
						if g2.scan(stream[j:j+1]) != nil {
							return j
						}
					}
					t.Fatal("refused in chunks, accepted byte by byte")
				}
			}
			return -1
		}
		if a, b := refusedAt(1), refusedAt(int(chunk)%32+1); a != b {
			t.Fatalf("refused at byte %d byte by byte, at %d in chunks of %d", a, b, int(chunk)%32+1)
		}
	})
}

// FuzzSockets writes each input to one of the kernel's sockets (byte 0
// picks it, byte 1 how far the ZMTP handshake goes first) and checks that
// the kernel still echoes a heartbeat. One kernel serves every input.
func FuzzSockets(f *testing.F) {
	s, _ := newSigner("hmac-sha256", testKey)
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 8; i++ {
		f.Add(append([]byte{byte(i), byte(i / 5)}, adversarialStream(rng, s, i%5 == 4)...))
	}
	k, c, _ := startKernel(f, newFake(), testKey)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		socks := kernelSockets(k.ConnectionInfo())
		sk := socks[int(in[0])%len(socks)]
		p := rawPeer(t, sk.addr, sk.typ, in[1]%3 == 2)
		if in[1]%3 == 1 {
			p.Write(zmtpGreeting())
		}
		if !finish(p, in[2:]) {
			t.Fatalf("the kernel neither read nor closed the connection within %v", testTimeout)
		}
		heartbeat(t, c)
	})
}

// finish writes b to p, half-closes it and reads (discarding replies)
// until the kernel has closed its side: then the kernel has read the whole
// stream, or dropped the connection. It reports false when the kernel did
// neither within testTimeout.
func finish(p net.Conn, b []byte) bool {
	defer p.Close()
	p.SetDeadline(time.Now().Add(testTimeout))
	p.Write(b) // fails when the kernel has dropped the connection
	if tc, ok := p.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	_, err := io.Copy(io.Discard, p)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// heartbeat checks that the kernel echoes one heartbeat.
func heartbeat(t testing.TB, c *testClient) {
	t.Helper()
	ping := []byte(newID())
	if err := c.hb.Send(zmq4.NewMsg(ping)); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	msg, err := c.hb.Recv()
	if err != nil || !bytes.Equal(msg.Bytes(), ping) {
		t.Fatalf("heartbeat echoed %q, %v", msg.Bytes(), err)
	}
}

// jsonJunk returns a random JSON-ish value: valid values of every type,
// deep nesting, huge numbers, invalid bytes.
func jsonJunk(rng *rand.Rand, depth int) string {
	switch rng.Intn(12) {
	case 0:
		return "null"
	case 1:
		return fmt.Sprint(rng.Int63() - rng.Int63())
	case 2:
		return "1e999"
	case 3:
		return `"` + strings.Repeat("é\\u0000", rng.Intn(4)) + `"`
	case 4:
		return "true"
	case 5:
		if depth > 0 {
			return "[" + jsonJunk(rng, depth-1) + "," + jsonJunk(rng, depth-1) + "]"
		}
		return "[]"
	case 6:
		if depth > 0 {
			return `{"code":` + jsonJunk(rng, depth-1) + `,"cursor_pos":` + jsonJunk(rng, depth-1) + "}"
		}
		return "{}"
	case 7:
		return strings.Repeat("[", 100+rng.Intn(1000))
	case 8:
		return "\xff\xfe"
	case 9:
		return `"// ` + fmt.Sprint(rng.Int()) + `"`
	case 10:
		return "-0.0e-5"
	}
	return `{"a":` + fmt.Sprint(rng.Float64()) + "}"
}

// requestTypes are the message types the adversarial streams sign; they
// exclude shutdown_request and interrupt_request, whose effects (stopping
// the kernel, interrupting) are requested behaviour, not damage.
var requestTypes = []string{"kernel_info_request", "execute_request", "complete_request", "inspect_request",
	"is_complete_request", "history_request", "comm_info_request", "comm_open", "comm_msg", "comm_close",
	"input_reply", "frobnicate_request", ""}

// jupyterFrames returns the frames of a Jupyter message mutated at random:
// signed or wrongly signed (also in upper case), parts that are not JSON
// objects, fields of the wrong types, missing or extra frames.
func jupyterFrames(rng *rand.Rand, s *signer) [][]byte {
	typ := requestTypes[rng.Intn(len(requestTypes))]
	h := map[string]any{"msg_id": newID(), "msg_type": typ, "session": "adv", "username": "x", "date": isoNow(), "version": ProtocolVersion}
	if rng.Intn(4) == 0 {
		h["msg_id"] = rng.Int()
	}
	if rng.Intn(6) == 0 {
		delete(h, "msg_type")
	}
	hb, _ := json.Marshal(h)
	content := map[string]any{"code": "// " + fmt.Sprint(rng.Int()), "silent": rng.Intn(2) == 0, "cursor_pos": rng.Intn(5),
		"detail_level": rng.Intn(3), "hist_access_type": "tail", "n": rng.Intn(3), "value": "v", "target_name": "t", "comm_id": "c"}
	cb, _ := json.Marshal(content)
	parts := [][]byte{hb, []byte("{}"), []byte("{}"), cb}
	for i := range parts {
		if rng.Intn(5) == 0 {
			parts[i] = []byte(jsonJunk(rng, 3))
		}
	}
	sig := s.sign(parts...)
	switch rng.Intn(6) {
	case 0:
		sig = bytes.ToUpper(sig)
	case 1:
		sig = []byte(strings.Repeat("0", 64))
	case 2:
		sig = nil
	}
	frames := append([][]byte{[]byte(delimiter), sig}, parts...)
	switch rng.Intn(6) {
	case 0:
		frames = frames[:rng.Intn(len(frames))]
	case 1:
		frames = append(frames, bytes.Repeat([]byte{byte(rng.Intn(256))}, rng.Intn(3000)))
	case 2:
		frames = append([][]byte{[]byte("extra-identity")}, frames...)
	}
	return frames
}

// adversarialStream returns bytes to write to a socket after the ZMTP
// handshake: random frames (random flags, commands, sizes, truncation),
// mutated Jupyter messages, subscriptions (sub, for IOPub), oversized
// announcements.
func adversarialStream(rng *rand.Rand, s *signer, sub bool) []byte {
	var b []byte
	for n := 1 + rng.Intn(6); n > 0; n-- {
		switch rng.Intn(7) {
		case 0: // random bytes
			junk := make([]byte, rng.Intn(600))
			rng.Read(junk)
			b = append(b, junk...)
		case 1: // a frame with random flags (MORE, LONG, COMMAND, reserved)
			body := make([]byte, rng.Intn(300))
			rng.Read(body)
			b = append(b, zmtpFrame(byte(rng.Intn(256))&^zmtpLong, body)...)
		case 2: // an oversized or absurd announcement
			sizes := []uint64{1 << 40, 1<<63 - 1, ^uint64(0), DefaultMaxMessageSize + 1}
			b = append(b, zmtpLongHeader(byte(rng.Intn(2)), sizes[rng.Intn(len(sizes))])...)
		case 3: // a command: PING with junk, an unknown one, a truncated name
			cmds := [][]byte{append([]byte("\x04PING"), 0xff), []byte("\x05HELLO"), []byte("\x40ab"), {}}
			b = append(b, zmtpFrame(0x04, cmds[rng.Intn(len(cmds))])...)
		case 4: // a truncated frame
			full := zmtpFrame(0, bytes.Repeat([]byte("t"), 100))
			b = append(b, full[:rng.Intn(len(full))]...)
		case 5: // a subscription (meaningful on IOPub, junk elsewhere)
			if sub || rng.Intn(3) == 0 {
				b = append(b, zmtpFrame(0, append([]byte{byte(rng.Intn(3))}, "kernel."...))...)
			}
		default: // a mutated, possibly signed, Jupyter message
			b = append(b, zmtpMessage(jupyterFrames(rng, s)...)...)
		}
	}
	return b
}

// TestDecodeSeeded runs the message parser on 20,000 seeded mutations of
// signed messages (the bounded form of FuzzDecode).
func TestDecodeSeeded(t *testing.T) {
	s, _ := newSigner("hmac-sha256", testKey)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		frames := jupyterFrames(rng, s)
		m, err := s.decode(frames)
		checkDecoded(t, m, err)
	}
}

// TestAdversarialStreams writes 1,000 seeded adversarial byte streams to the
// kernel's sockets (shell, control, stdin, heartbeat, IOPub), each over
// its own loopback connection: random bytes before any greeting, a
// greeting then junk, a full ZMTP handshake then random frames, commands,
// oversized announcements and mutated Jupyter messages. Afterwards the
// kernel answers kernel_info_request on shell and control, echoes a
// heartbeat and runs a cell, and no panic was recovered.
func TestAdversarialStreams(t *testing.T) {
	k, c, log := startKernel(t, newFake(), testKey)
	s, _ := newSigner("hmac-sha256", testKey)
	rng := rand.New(rand.NewSource(1))
	socks := kernelSockets(k.ConnectionInfo())
	var wg sync.WaitGroup
	var stuck atomic.Int32
	for round := 0; round < 200; round++ {
		for _, sk := range socks {
			var p net.Conn
			var b []byte
			switch mode := rng.Intn(8); {
			case mode == 0: // no greeting
				p = rawPeer(t, sk.addr, sk.typ, false)
				b = make([]byte, rng.Intn(200))
				rng.Read(b)
			case mode == 1: // a greeting, possibly corrupted, then junk
				p = rawPeer(t, sk.addr, sk.typ, false)
				g := zmtpGreeting()
				if rng.Intn(2) == 0 {
					g[rng.Intn(len(g))] ^= byte(1 + rng.Intn(255))
				}
				b = append(g, adversarialStream(rng, s, false)...)
			case mode <= 4: // a handshake, then only (mutated) Jupyter messages
				p = rawPeer(t, sk.addr, sk.typ, true)
				for n := 1 + rng.Intn(5); n > 0; n-- {
					b = append(b, zmtpMessage(jupyterFrames(rng, s)...)...)
				}
			default:
				p = rawPeer(t, sk.addr, sk.typ, true)
				b = adversarialStream(rng, s, sk.name == "iopub")
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if !finish(p, b) {
					stuck.Add(1)
				}
			}()
		}
		if round%20 == 19 {
			wg.Wait()
			heartbeat(t, c)
		}
	}
	wg.Wait()
	alive(t, c, "after adversarial streams")
	if n := stuck.Load(); n > 0 {
		t.Errorf("the kernel neither read nor closed %d connections within %v", n, testTimeout)
	}
	for _, what := range []string{"dropping the connection", "connection from", "bad message signature",
		"answered with an error", "dropping message", "dropping malformed", "unknown message type"} {
		t.Logf("%4d log lines with %q", strings.Count(log.String(), what), what)
	}
	if reply, _ := c.execute("result still here", nil); reply["status"] != "ok" {
		t.Fatalf("execute after adversarial streams: %v", reply)
	}
	for _, bad := range []string{"recovered panic", "handshake panicked"} {
		if strings.Contains(log.String(), bad) {
			t.Errorf("log has %q:\n%s", bad, excerpt(log.String(), bad))
		}
	}
}

// excerpt returns the lines of s around the first occurrence of sub.
func excerpt(s, sub string) string {
	i := strings.Index(s, sub)
	lo, hi := max(0, i-300), min(len(s), i+1500)
	return s[lo:hi]
}
