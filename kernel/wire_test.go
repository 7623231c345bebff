package kernel

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSignMatchesSpec checks the signature against the specification's
// recipe: hex HMAC-SHA256 of header, parent, metadata and content.
func TestSignMatchesSpec(t *testing.T) {
	s, err := newSigner("hmac-sha256", "secret")
	if err != nil {
		t.Fatal(err)
	}
	parts := [][]byte{[]byte(`{"msg_id":"1"}`), []byte(`{}`), []byte(`{}`), []byte(`{"code":"1+1"}`)}
	mac := hmac.New(sha256.New, []byte("secret"))
	for _, p := range parts {
		mac.Write(p)
	}
	want := hex.EncodeToString(mac.Sum(nil))
	if got := string(s.sign(parts...)); got != want {
		t.Fatalf("sign = %s, want %s", got, want)
	}
	// The specification's "HMAC hex digest" is Python's hexdigest(), lower
	// case, which jupyter_client compares byte for byte: other spellings of
	// the same digest are bad signatures.
	mixed := []byte(want)
	for i, ch := range mixed {
		if ch >= 'a' && ch <= 'f' {
			mixed[i] = ch - 'a' + 'A'
			break
		}
	}
	for _, sig := range []string{strings.ToUpper(want), string(mixed)} {
		if err := s.verify([]byte(sig), parts...); !errors.Is(err, ErrBadSignature) {
			t.Errorf("signature %s accepted or refused for another reason: %v", sig, err)
		}
	}
	if err := s.verify([]byte(want), parts...); err != nil {
		t.Errorf("lower-case hex rejected: %v", err)
	}
	if err := s.verify([]byte(want), parts...); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("replay accepted: %v", err)
	}
	if err := s.verify([]byte(want[:10]), parts...); !errors.Is(err, ErrBadSignature) || !errors.Is(err, ErrProtocol) {
		t.Errorf("short signature: %v", err)
	}
	if _, err := newSigner("hmac-md4", "k"); err == nil {
		t.Error("unknown scheme accepted")
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	s, _ := newSigner("hmac-sha512", "k")
	h := Header{MsgID: "m1", Session: "s", Username: "u", Date: isoNow(), MsgType: "stream", Version: ProtocolVersion}
	frames, err := s.encode([][]byte{[]byte("id1"), []byte("id2")}, h, []byte(`{"msg_id":"p"}`), map[string]any{"a": 1}, map[string]any{"name": "stdout", "text": "é"})
	if err != nil {
		t.Fatal(err)
	}
	frames = append(frames, []byte{0, 1, 2})
	r, _ := newSigner("hmac-sha512", "k")
	m, err := r.decode(frames)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Identities) != 2 || string(m.Identities[1]) != "id2" || m.Header != h || string(m.Parent) != `{"msg_id":"p"}` ||
		string(m.Content) != `{"name":"stdout","text":"é"}` || len(m.Buffers) != 1 || string(m.Metadata) != `{"a":1}` {
		t.Errorf("decoded %+v", m)
	}
}

func TestNewIDIsUUID4(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := newID()
		if len(id) != 36 || id[14] != '4' || !strings.ContainsRune("89ab", rune(id[19])) || seen[id] {
			t.Fatalf("bad id %s", id)
		}
		seen[id] = true
	}
}

func TestCursorConversions(t *testing.T) {
	s := "aé日😀b" // bytes: a(1) é(2) 日(3) 😀(4) b(1); UTF-16: 1 1 1 2 1
	for _, c := range []struct{ runes, bytes, utf16 int }{{0, 0, 0}, {1, 1, 1}, {2, 3, 2}, {3, 6, 3}, {4, 10, 5}, {5, 11, 6}} {
		if got := runeToByte(s, c.runes); got != c.bytes {
			t.Errorf("runeToByte(%d) = %d, want %d", c.runes, got, c.bytes)
		}
		if got := byteToRune(s, c.bytes); got != c.runes {
			t.Errorf("byteToRune(%d) = %d, want %d", c.bytes, got, c.runes)
		}
		if got := utf16ToByte(s, c.utf16); got != c.bytes {
			t.Errorf("utf16ToByte(%d) = %d, want %d", c.utf16, got, c.bytes)
		}
		if got := byteToUTF16(s, c.bytes); got != c.utf16 {
			t.Errorf("byteToUTF16(%d) = %d, want %d", c.bytes, got, c.utf16)
		}
	}
	if runeToByte(s, 99) != len(s) || runeToByte(s, -3) != 0 || byteToRune(s, 99) != 5 {
		t.Error("clamping")
	}
	if byteToRune(s, 4) != 2 { // inside 日: its start
		t.Errorf("byteToRune inside a rune = %d", byteToRune(s, 4))
	}
	if utf16ToByte(s, 4) != 6 { // inside the surrogate pair: start of 😀
		t.Errorf("utf16ToByte inside a pair = %d", utf16ToByte(s, 4))
	}
	for v, want := range map[string]bool{"5.3": false, "5.2": false, "5.1": true, "5.0": true, "4.1": true, "": false, "x": false, "6.0": false} {
		if olderThan52(v) != want {
			t.Errorf("olderThan52(%q) != %v", v, want)
		}
	}
}

func TestIncompleteTail(t *testing.T) {
	full := []byte("a😀")
	for cut, want := range map[int]int{1: 0, 2: 1, 3: 2, 4: 3, 5: 0} {
		if got := incompleteTail(full[:cut]); got != want {
			t.Errorf("incompleteTail(%q) = %d, want %d", full[:cut], got, want)
		}
	}
	if incompleteTail([]byte("é")) != 0 || incompleteTail([]byte{0xe6}) != 1 || incompleteTail([]byte{'a', 0x80}) != 0 {
		t.Error("short cases")
	}
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "anything/at all", true}, {"a*", "abc", true}, {"a*", "bac", false},
		{"*c", "abc", true}, {"a?c", "abc", true}, {"a?c", "ac", false}, {"a?c", "aéc", true},
		{"[ab]x", "bx", true}, {"[ab]x", "cx", false}, {"[^ab]x", "cx", true}, {"[a-c]", "b", true},
		{"[]]", "]", true}, {"[a", "a", false}, {"*.Println(*", `fmt.Println("x")`, true}, {"A*", "a", false},
	}
	for _, c := range cases {
		if got := globMatch(c.p, c.s); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

func TestReadConnectionFile(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "c.json")
		os.WriteFile(p, []byte(s), 0o600)
		return p
	}
	info, err := ReadConnectionFile(write(`{"shell_port": 1, "iopub_port": 2, "stdin_port": 3, "control_port": 4, "hb_port": 5,
		"ip": "127.0.0.1", "key": "k", "transport": "tcp", "signature_scheme": "hmac-sha256", "kernel_name": "gnnrepl"}`))
	if err != nil || info.ShellPort != 1 || info.HBPort != 5 || info.Key != "k" || info.endpoint(info.ShellPort) != "tcp://127.0.0.1:1" {
		t.Errorf("%+v %v", info, err)
	}
	info, err = ReadConnectionFile(write(`{"ip": "/tmp/k", "transport": "ipc", "shell_port": 1, "iopub_port": 2, "stdin_port": 3, "control_port": 4, "hb_port": 5}`))
	if err != nil || info.endpoint(2) != "ipc:///tmp/k-2" || info.SignatureScheme != "hmac-sha256" {
		t.Errorf("ipc: %+v %v", info, err)
	}
	ci := ConnectionInfo{IP: "::1"}
	if ci.endpoint(7) != "tcp://[::1]:7" {
		t.Errorf("ipv6 endpoint %s", ci.endpoint(7))
	}
	for _, bad := range []string{`{`, `{"ip": ""}`, `{"ip": "1.2.3.4", "transport": "udp"}`, `{"ip": "1.2.3.4", "shell_port": 70000}`,
		`{"ip": "1.2.3.4", "signature_scheme": "hmac-md5"}`, `{"ip": "/tmp/x", "transport": "ipc"}`} {
		if _, err := ReadConnectionFile(write(bad)); err == nil || !strings.Contains(err.Error(), "c.json") {
			t.Errorf("%s: error %v does not name the file", bad, err)
		}
	}
	if _, err := ReadConnectionFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestDroppable(t *testing.T) {
	for topic, want := range map[string]bool{
		"kernel.x.stream": true, "kernel.x.display_data": true, "kernel.x.update_display_data": true,
		"kernel.x.status": false, "kernel.x.execute_result": false, "kernel.x.error": false, "kernel.x.execute_input": false,
	} {
		if droppable(topic) != want {
			t.Errorf("droppable(%q) != %v", topic, want)
		}
	}
}
