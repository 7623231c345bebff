package prebind

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

func TestConnectionFile(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"kernel", "-f", "/x.json"}, "/x.json"},
		{[]string{"--data", "d", "kernel", "--f=/y.json"}, "/y.json"},
		{[]string{"kernel", "-f=/z.json"}, "/z.json"},
		{[]string{"kernel", "install"}, ""},
		{[]string{"run", "kernel.go"}, ""},
		{[]string{"kernel", "-f"}, ""},
		{nil, ""},
	} {
		if got := connectionFile(c.args); got != c.want {
			t.Errorf("connectionFile(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

// TestListenTake: the ports of a connection file listen (a client's
// connect succeeds before anyone accepts) until Take hands them over, once.
func TestListenTake(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("early listening is Linux only")
	}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := free.Addr().(*net.TCPAddr).Port
	free.Close()
	file := filepath.Join(t.TempDir(), "kernel.json")
	b, _ := json.Marshal(map[string]any{"transport": "tcp", "ip": "127.0.0.1", "shell_port": port, "iopub_port": 0})
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	Listen(file)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("connect before Take: %v", err)
	}
	defer c.Close()
	f := Take("tcp", addr)
	if f == nil {
		t.Fatal("Take returned nil")
	}
	defer f.Close()
	if Take("tcp", addr) != nil {
		t.Error("Take returned the socket twice")
	}
	ln, err := net.FileListener(f)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s, err := ln.Accept() // the connection made before Take
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, ip := range []string{"", "localhost", "::1", "1.2.3", "01.2.3.4"} {
		if _, ok := parseIPv4(ip); ok {
			t.Errorf("parseIPv4(%q) accepted", ip)
		}
	}
}
