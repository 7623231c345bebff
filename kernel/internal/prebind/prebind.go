// Package prebind opens the Jupyter kernel's listening sockets as early in
// the process as it can: from its init function, which Go runs before the
// initialization of the engine packages (tensor opens OpenBLAS there) and
// long before main reads the connection file.
//
// jupyter_client connects its shell, IOPub and other sockets right after
// it starts the kernel process; a connection attempt that finds no
// listener is retried by ZeroMQ only after its reconnect interval (100 ms),
// and the client's wait_for_ready then waits for that retry. With the ports
// listening within a few milliseconds of exec, the first attempts succeed:
// the operating system completes the TCP handshakes on the listen backlog,
// and the kernel greets the peers as soon as it serves.
//
// The kernel (package kernel) takes the listening sockets with Take when it
// binds (net.FileListener makes them listeners); sockets nobody takes stay
// open until the process exits. Errors are ignored here: the kernel binds
// again, and reports them, itself. Only TCP on an IPv4 address is done
// early, with system calls on Linux: package net is not imported, as its
// initialization comes late in the order (after tensor's). The gnnrepl
// binary re-executes itself (internal/memrelease/early) before this runs;
// in the other order the sockets would be closed by the exec and opened
// again, a waste but no harm.
package prebind

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
)

var (
	mu   sync.Mutex
	held = map[string]*os.File{} // "tcp IP:PORT" -> listening socket
)

func init() {
	if f := connectionFile(os.Args[1:]); f != "" {
		Listen(f)
	}
}

// connectionFile returns FILE from a `... kernel ... -f FILE` command line
// (also --f FILE, -f=FILE), or "".
func connectionFile(args []string) string {
	for i, a := range args {
		if a != "kernel" {
			continue
		}
		rest := args[i+1:]
		for j, b := range rest {
			switch {
			case (b == "-f" || b == "--f") && j+1 < len(rest):
				return rest[j+1]
			case strings.HasPrefix(b, "-f="):
				return strings.TrimPrefix(b, "-f=")
			case strings.HasPrefix(b, "--f="):
				return strings.TrimPrefix(b, "--f=")
			}
		}
		return ""
	}
	return ""
}

// Listen opens a listening TCP socket on every non-zero port of the
// Jupyter connection file path, on its IPv4 address ("*" is 0.0.0.0), and
// holds them for Take. Files it cannot read or parse, other transports and
// addresses, and ports that cannot be bound are skipped.
func Listen(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var info struct {
		Transport string `json:"transport"`
		IP        string `json:"ip"`
		Shell     int    `json:"shell_port"`
		IOPub     int    `json:"iopub_port"`
		Stdin     int    `json:"stdin_port"`
		Control   int    `json:"control_port"`
		HB        int    `json:"hb_port"`
	}
	if json.Unmarshal(b, &info) != nil || info.Transport != "" && info.Transport != "tcp" {
		return
	}
	host := info.IP
	if host == "*" {
		host = "0.0.0.0"
	}
	ip, ok := parseIPv4(host)
	if !ok {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range []int{info.Shell, info.IOPub, info.Stdin, info.Control, info.HB} {
		if p <= 0 || p > 65535 {
			continue
		}
		key := "tcp " + host + ":" + strconv.Itoa(p)
		if _, ok := held[key]; ok {
			continue
		}
		if f := listenTCP4(ip, p); f != nil {
			held[key] = f
		}
	}
}

// parseIPv4 parses a dotted-quad IPv4 address.
func parseIPv4(s string) (ip [4]byte, ok bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return ip, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 || p == "" || len(p) > 1 && p[0] == '0' {
			return ip, false
		}
		ip[i] = byte(n)
	}
	return ip, true
}

// Take returns, and forgets, the listening socket held for network and
// addr (as net.JoinHostPort writes it), or nil. The caller owns it.
func Take(network, addr string) *os.File {
	mu.Lock()
	defer mu.Unlock()
	f := held[network+" "+addr]
	delete(held, network+" "+addr)
	return f
}
