//go:build !linux

package prebind

import "os"

// listenTCP4 opens nothing early off Linux: the kernel binds in main.
func listenTCP4(ip [4]byte, port int) *os.File { return nil }
