package kernel

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/gnnrepl/gnnrepl/kernel/internal/prebind"
)

// TestPrebound: a socket opened early by kernel/internal/prebind (as every
// kernel binary does from an init function) is the one the kernel serves on, and
// a client that connected before the kernel bound is answered.
func TestPrebound(t *testing.T) {
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
	b, _ := json.Marshal(map[string]any{"transport": "tcp", "ip": "127.0.0.1", "shell_port": port})
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	prebind.Listen(file)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	early, err := net.Dial("tcp", addr) // before the kernel binds
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close()
	r, err := listenRouter("tcp", addr, "shell", 0, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if f := prebind.Take("tcp", addr); f != nil {
		f.Close()
		t.Fatal("the kernel did not take the prebound socket")
	}
	// The early connection gets the kernel's ZMTP greeting.
	greeting := make([]byte, 10)
	if _, err := early.Read(greeting); err != nil || greeting[0] != 0xff {
		t.Errorf("greeting %x, %v", greeting, err)
	}
}
