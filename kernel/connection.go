package kernel

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
)

// ConnectionInfo is the content of a Jupyter connection file: the transport,
// address and ports of the kernel's five sockets and the key that signs every
// message. Jupyter writes it and passes its path as {connection_file}.
type ConnectionInfo struct {
	// Transport is "tcp" or "ipc". Empty means "tcp".
	Transport string `json:"transport"`
	// IP is the address the kernel binds to (tcp), or the path prefix of the
	// sockets (ipc: the endpoint of port P is "ipc://IP-P").
	IP string `json:"ip"`
	// The ports of the sockets. Port 0 (tcp only) lets the system choose; the
	// chosen ports are reported by Kernel.ConnectionInfo.
	ShellPort   int `json:"shell_port"`
	IOPubPort   int `json:"iopub_port"`
	StdinPort   int `json:"stdin_port"`
	ControlPort int `json:"control_port"`
	HBPort      int `json:"hb_port"`
	// Key is the HMAC key. Empty disables signing and verification.
	Key string `json:"key"`
	// SignatureScheme is "hmac-sha256" (Jupyter's default), "hmac-sha512" or
	// "hmac-sha1". Empty means "hmac-sha256".
	SignatureScheme string `json:"signature_scheme"`
	// KernelName is informational; Jupyter writes the kernelspec name here.
	KernelName string `json:"kernel_name,omitempty"`
}

// ReadConnectionFile reads and validates the JSON connection file at path.
// Errors name the file.
func ReadConnectionFile(path string) (ConnectionInfo, error) {
	var info ConnectionInfo
	b, err := os.ReadFile(path)
	if err != nil {
		return info, fmt.Errorf("kernel: reading connection file: %w", err)
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, fmt.Errorf("kernel: connection file %s: %w", path, err)
	}
	if err := info.validate(); err != nil {
		return info, fmt.Errorf("kernel: connection file %s: %w", path, err)
	}
	return info, nil
}

// validate fills defaults and checks the transport, address and ports.
func (c *ConnectionInfo) validate() error {
	if c.Transport == "" {
		c.Transport = "tcp"
	}
	if c.SignatureScheme == "" {
		c.SignatureScheme = "hmac-sha256"
	}
	if _, ok := hashes[c.SignatureScheme]; !ok {
		return fmt.Errorf("signature_scheme %q is not supported (want one of hmac-sha256, hmac-sha512, hmac-sha1)", c.SignatureScheme)
	}
	switch c.Transport {
	case "tcp", "ipc":
	default:
		return fmt.Errorf("transport %q is not supported (want tcp or ipc)", c.Transport)
	}
	if c.IP == "" {
		return fmt.Errorf("ip is empty")
	}
	for _, p := range []struct {
		name string
		port int
	}{{"shell_port", c.ShellPort}, {"iopub_port", c.IOPubPort}, {"stdin_port", c.StdinPort}, {"control_port", c.ControlPort}, {"hb_port", c.HBPort}} {
		if p.port < 0 || p.port > 65535 {
			return fmt.Errorf("%s %d is out of range [0, 65535]", p.name, p.port)
		}
		if p.port == 0 && c.Transport == "ipc" {
			return fmt.Errorf("%s is 0; ipc endpoints need an explicit number", p.name)
		}
	}
	return nil
}

// endpoint is the ZeroMQ endpoint of port on this connection's address.
func (c *ConnectionInfo) endpoint(port int) string {
	network, addr := c.netAddr(port)
	if network == "unix" {
		return "ipc://" + addr
	}
	return "tcp://" + addr
}

// netAddr is the Go network and address of port: ("tcp", "IP:PORT") or
// ("unix", "IP-PORT"). ZeroMQ's wildcard address "*" is 0.0.0.0.
func (c *ConnectionInfo) netAddr(port int) (network, addr string) {
	if c.Transport == "ipc" {
		return "unix", c.IP + "-" + strconv.Itoa(port)
	}
	ip := c.IP
	if ip == "*" {
		ip = "0.0.0.0"
	}
	return "tcp", net.JoinHostPort(ip, strconv.Itoa(port))
}
