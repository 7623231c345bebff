package prebind

import (
	"os"
	"strconv"
	"syscall"
)

// listenTCP4 returns a listening TCP socket on ip:port (SO_REUSEADDR, as
// package net sets it), or nil.
func listenTCP4(ip [4]byte, port int) *os.File {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, syscall.IPPROTO_TCP)
	if err != nil {
		return nil
	}
	if syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1) != nil ||
		syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: ip}) != nil ||
		syscall.Listen(fd, syscall.SOMAXCONN) != nil {
		syscall.Close(fd)
		return nil
	}
	return os.NewFile(uintptr(fd), "tcp:"+strconv.Itoa(port))
}
