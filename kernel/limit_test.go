package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// zmtpGreeting is a valid ZMTP 3.0 NULL greeting as a client sends it.
func zmtpGreeting() []byte {
	g := make([]byte, zmtpGreetingLen)
	g[0], g[9] = 0xff, 0x7f
	g[10], g[11] = 3, 0
	copy(g[12:], "NULL")
	return g
}

// zmtpFrame encodes one ZMTP frame with the given flags (the long flag is
// set as the size needs).
func zmtpFrame(flags byte, body []byte) []byte {
	if len(body) > 255 {
		return append(zmtpLongHeader(flags, uint64(len(body))), body...)
	}
	return append([]byte{flags, byte(len(body))}, body...)
}

// zmtpLongHeader is the header of a long frame announcing size bytes.
func zmtpLongHeader(flags byte, size uint64) []byte {
	h := make([]byte, 9)
	h[0] = flags | zmtpLong
	binary.BigEndian.PutUint64(h[1:], size)
	return h
}

// zmtpMessage encodes frames as one multipart message.
func zmtpMessage(frames ...[]byte) []byte {
	var b []byte
	for i, f := range frames {
		var fl byte
		if i < len(frames)-1 {
			fl = zmtpMore
		}
		b = append(b, zmtpFrame(fl, f)...)
	}
	return b
}

// kernelSockets lists the kernel's sockets by name with the socket type a
// peer of each has.
func kernelSockets(info ConnectionInfo) []struct {
	name string
	addr string
	typ  zmq4.SocketType
} {
	a := func(port int) string { return fmt.Sprintf("%s:%d", info.IP, port) }
	return []struct {
		name string
		addr string
		typ  zmq4.SocketType
	}{
		{"shell", a(info.ShellPort), zmq4.Dealer},
		{"control", a(info.ControlPort), zmq4.Dealer},
		{"stdin", a(info.StdinPort), zmq4.Dealer},
		{"hb", a(info.HBPort), zmq4.Req},
		{"iopub", a(info.IOPubPort), zmq4.Sub},
	}
}

// rawPeer dials addr (loopback only) and, with handshake, completes a ZMTP
// NULL handshake as a peer of type typ; the connection is then written
// byte for byte by the test.
func rawPeer(t testing.TB, addr string, typ zmq4.SocketType, handshake bool) net.Conn {
	t.Helper()
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("rawPeer: %s is not a loopback address", addr)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if handshake {
		c.SetDeadline(time.Now().Add(testTimeout))
		if _, err := zmq4.Open(c, null.Security(), typ, zmq4.SocketIdentity(newID()), false, nil); err != nil {
			c.Close()
			t.Fatalf("handshake with %s: %v", addr, err)
		}
		c.SetDeadline(time.Time{})
	}
	return c
}

// waitDropped reads c until the kernel closes it; it fails the test if the
// kernel has not within testTimeout.
func waitDropped(t testing.TB, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(testTimeout))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the kernel kept the connection open", what)
	}
	c.Close()
}

// alive checks that the kernel answers kernel_info_request on shell and
// control and echoes a heartbeat.
func alive(t testing.TB, c *testClient, what string) {
	t.Helper()
	if r := c.reply(c.shellCh, c.send(c.shell, "kernel_info_request", map[string]any{})); r.Header.MsgType != "kernel_info_reply" {
		t.Fatalf("%s: shell answered %s", what, r.Header.MsgType)
	}
	if r := c.reply(c.controlCh, c.send(c.control, "kernel_info_request", map[string]any{})); r.Header.MsgType != "kernel_info_reply" {
		t.Fatalf("%s: control answered %s", what, r.Header.MsgType)
	}
	ping := []byte("ping " + what)
	if err := c.hb.Send(zmq4.NewMsg(ping)); err != nil {
		t.Fatalf("%s: heartbeat: %v", what, err)
	}
	msg, err := c.hb.Recv()
	if err != nil || !bytes.Equal(msg.Bytes(), ping) {
		t.Fatalf("%s: heartbeat echoed %q, %v", what, msg.Bytes(), err)
	}
}

// TestFrameGuard checks the ZMTP stream follower on its own: a frame or a
// multipart message beyond the limit is refused on the byte that completes
// its size, whatever the read boundaries, and the limit counts 64 bytes
// per frame.
func TestFrameGuard(t *testing.T) {
	const limit = 1000
	body := func(n int) []byte { return bytes.Repeat([]byte{'x'}, n) }
	cases := []struct {
		name   string
		stream []byte
		// refuseAt is the index of the byte whose read is refused, -1 if
		// the stream is accepted.
		refuseAt int
	}{
		{"small frames", append(zmtpGreeting(), zmtpMessage(body(10), body(300), body(0))...), -1},
		{"at the limit", append(zmtpGreeting(), zmtpFrame(0, body(limit-frameOverhead))...), -1},
		{"one byte over", append(zmtpGreeting(), zmtpFrame(0, body(limit-frameOverhead+1))...), zmtpGreetingLen + 8},
		{"huge announced", append(zmtpGreeting(), zmtpLongHeader(0, 1<<62)...), zmtpGreetingLen + 8},
		{"largest uint64", append(zmtpGreeting(), zmtpLongHeader(zmtpMore, ^uint64(0))...), zmtpGreetingLen + 8},
		{"multipart over", append(zmtpGreeting(), zmtpMessage(body(400), body(400), body(200))...), zmtpGreetingLen + 2*(9+400) + 1},
		{"messages each under", append(zmtpGreeting(), append(zmtpMessage(body(400), body(400)), zmtpMessage(body(400), body(400))...)...), -1},
		{"empty frames add up", append(zmtpGreeting(), bytes.Repeat([]byte{zmtpMore, 0}, 20)...), zmtpGreetingLen + 2*15 + 1},
	}
	rng := rand.New(rand.NewSource(1))
	for _, c := range cases {
		for trial := 0; trial < 20; trial++ {
			g := frameGuard{limit: limit, skip: zmtpGreetingLen}
			got := -1
			for i := 0; i < len(c.stream); {
				n := 1 + rng.Intn(20)
				if trial == 0 {
					n = 1
				}
				n = min(n, len(c.stream)-i)
				if err := g.scan(c.stream[i : i+n]); err != nil {
					if !errors.Is(err, ErrMessageTooLarge) {
						t.Fatalf("%s: %v", c.name, err)
					}
					// The refused byte is within this read; find it.
					g2 := frameGuard{limit: limit, skip: zmtpGreetingLen}
					for j := 0; j < i+n; j++ {
						if g2.scan(c.stream[j:j+1]) != nil {
							got = j
							break
						}
					}
					if got < i {
						t.Fatalf("%s: refused at byte %d, before the read at %d", c.name, got, i)
					}
					break
				}
				i += n
			}
			if got != c.refuseAt {
				t.Fatalf("%s (trial %d): refused at byte %d, want %d", c.name, trial, got, c.refuseAt)
			}
		}
	}
}

// TestMaxMessageSize: on every socket, a peer that announces a frame or a
// multipart message beyond Options.MaxMessageSize is disconnected (and
// logged) before anything of that size is allocated; a handshake with
// oversized metadata too; a message under the limit is served; and the
// kernel keeps answering.
func TestMaxMessageSize(t *testing.T) {
	const limit = 1 << 20
	k, c, log := startKernelOpts(t, newFake(), testKey, Options{MaxMessageSize: limit})
	socks := kernelSockets(k.ConnectionInfo())
	for _, s := range socks {
		// 1 TiB announced in one frame: refused at its header.
		p := rawPeer(t, s.addr, s.typ, true)
		p.Write(zmtpLongHeader(0, 1<<40))
		waitDropped(t, p, s.name+" 1 TiB frame")

		// 17 frames of 64 KiB joined by MORE: refused at the 16th.
		p = rawPeer(t, s.addr, s.typ, true)
		chunk := bytes.Repeat([]byte{'y'}, 64<<10)
		var b []byte
		for range 17 {
			b = append(b, zmtpFrame(zmtpMore, chunk)...)
		}
		go p.Write(b) // the kernel stops reading, so this may block
		waitDropped(t, p, s.name+" multipart")

		// A READY command of 1 MiB during the handshake (limit 64 KiB).
		p = rawPeer(t, s.addr, s.typ, false)
		p.Write(zmtpGreeting())
		p.Write(zmtpLongHeader(0x04, 1<<20))
		waitDropped(t, p, s.name+" handshake")
	}
	for _, name := range []string{"shell", "control", "stdin", "hb", "iopub"} {
		if !strings.Contains(log.String(), name+": dropping the connection from 127.0.0.1") {
			t.Errorf("no refusal logged for %s; log:\n%s", name, log.String())
		}
	}
	if !strings.Contains(log.String(), "exceeds the limit of 65536 bytes") {
		t.Errorf("oversized handshake not logged; log:\n%s", log.String())
	}
	alive(t, c, "after oversized messages")
	// 900 KiB of content is under the 1 MiB limit and served.
	id := c.send(c.shell, "execute_request", map[string]any{"code": "result big\n// " + strings.Repeat("z", 900<<10)})
	if r := content(t, c.reply(c.shellCh, id)); r["status"] != "ok" {
		t.Errorf("execute_request of 900 KiB: status %v, ename %v", r["status"], r["ename"])
	}
}

// TestDefaultMaxMessageSize: with the default limit, a peer announcing a
// frame of 1 TiB is disconnected; the kernel process would otherwise try
// to allocate it (and die of it).
func TestDefaultMaxMessageSize(t *testing.T) {
	k, c, log := startKernel(t, newFake(), testKey)
	s := kernelSockets(k.ConnectionInfo())[0]
	p := rawPeer(t, s.addr, s.typ, true)
	p.Write(zmtpLongHeader(zmtpMore, 1<<40))
	waitDropped(t, p, "1 TiB frame")
	if !strings.Contains(log.String(), fmt.Sprintf("limit of %d bytes", DefaultMaxMessageSize)) {
		t.Errorf("refusal not logged; log:\n%s", log.String())
	}
	alive(t, c, "after a 1 TiB frame")
}

// TestCommandMaxMessageSizeFlag: gnnrepl kernel refuses a negative
// --max-message-size as a usage error.
func TestCommandMaxMessageSizeFlag(t *testing.T) {
	var out, errb bytes.Buffer
	cmd := Command{Stdout: &out, Stderr: &errb, NewSession: func() (Session, error) { return newFake(), nil }}
	if code := cmd.Run([]string{"-f", "x.json", "--max-message-size", "-5"}); code != 2 || !strings.Contains(errb.String(), "max-message-size") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestUnsignedDroppedWhileBusy: while a cell runs, messages that cannot be
// authenticated (here 20 with 512 KiB buffers and a bad signature) are
// dropped as they arrive, not queued behind the cell; a signed request
// sent meanwhile is answered once the cell ends.
func TestUnsignedDroppedWhileBusy(t *testing.T) {
	f := newFake()
	_, c, log := startKernel(t, f, testKey)
	id := c.send(c.shell, "execute_request", map[string]any{"code": "block"})
	f.waitStarted("block")
	h := c.header("kernel_info_request")
	frames, err := c.sig.encode(nil, h, nil, nil, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	frames[1] = []byte(strings.Repeat("0", 64))
	frames = append(frames, bytes.Repeat([]byte{'b'}, 512<<10))
	for range 20 {
		c.sendRaw(c.shell, frames)
	}
	deadline := time.Now().Add(testTimeout)
	for strings.Count(log.String(), "shell: dropping message") < 20 {
		if time.Now().After(deadline) {
			t.Fatalf("bad signatures not dropped while the cell runs; log:\n%s", log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	ki := c.send(c.shell, "kernel_info_request", map[string]any{})
	c.reply(c.controlCh, c.send(c.control, "interrupt_request", map[string]any{}))
	if r := content(t, c.reply(c.shellCh, id)); r["ename"] != "KeyboardInterrupt" {
		t.Errorf("interrupted cell: %v", r)
	}
	c.reply(c.shellCh, ki)
}

// TestAnnouncedFrameCostsArrivedBytes: peers that announce frames just
// under Options.MaxMessageSize and then send only a few bytes cost the
// kernel those bytes, not the announced sizes. zmq4's Conn.RecvMsg
// allocated each announced body at once (32 such connections under the
// default 1 GiB limit held 7.8 GB); peer.recv grows a frame's buffer as its
// bytes arrive.
func TestAnnouncedFrameCostsArrivedBytes(t *testing.T) {
	const (
		limit = 64 << 20
		conns = 16
	)
	k, c, _ := startKernelOpts(t, newFake(), testKey, Options{MaxMessageSize: limit})
	socks := kernelSockets(k.ConnectionInfo())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	base := largeFramesReading.Load()
	var peers []net.Conn
	for i := range conns {
		s := socks[i%len(socks)]
		p := rawPeer(t, s.addr, s.typ, true)
		peers = append(peers, p)
		p.Write(append(zmtpLongHeader(0, limit-1024), bytes.Repeat([]byte{'x'}, 1000)...))
	}
	deadline := time.Now().Add(testTimeout)
	for largeFramesReading.Load()-base < conns {
		if time.Now().After(deadline) {
			t.Fatalf("the kernel read %d of %d frame headers", largeFramesReading.Load()-base, conns)
		}
		time.Sleep(time.Millisecond)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d connections announcing %d MiB each: heap grew by %d KiB (%d announced)",
		conns, limit>>20, grew>>10, int64(conns)*(limit-1024)>>10)
	// Each waiting frame holds one recvChunk buffer (64 KiB); the rest is
	// the connections' buffers and goroutines.
	if max := int64(conns) * (recvChunk + 256<<10); grew > max {
		t.Errorf("heap grew by %d bytes for %d announced frames, want at most %d", grew, conns, max)
	}
	for _, p := range peers {
		p.Close()
	}
	alive(t, c, "after announced frames")
}
