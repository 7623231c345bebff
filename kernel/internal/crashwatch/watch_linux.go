package crashwatch

import (
	"bytes"
	"os"
	"os/signal"
	"syscall"
)

func init() {
	if len(os.Args) == 2 && os.Args[1] == Arg {
		os.Exit(watch())
	}
}

func watch() int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	closeOthers()
	syscall.SetNonblock(StderrFD, true) // a read never waits for a writer
	buf := make([]byte, 64<<10)
	n := readSome(WatchFD, buf)
	if n == 0 { // the kernel ended without a crash report
		writeAll(2, drain(StderrFD))
		return 0
	}
	// A crash is under way. The runtime writes each piece of its report to
	// descriptor 2 before the crash pipe, so what the pipe holds now is the
	// text before the report (the reason among it) and a copy of the
	// report's start, possibly longer than what has come on the crash pipe.
	rest := drain(StderrFD)
	report := append([]byte(nil), buf[:n]...)
	eof := false
	for len(report) < len(rest) && !eof {
		if m := readSome(WatchFD, buf); m > 0 {
			report = append(report, buf[:m]...)
		} else {
			eof = true
		}
	}
	writeAll(2, rest[:reportStart(rest, report)])
	writeAll(2, report)
	for !eof {
		m := readSome(WatchFD, buf)
		if m == 0 {
			break
		}
		writeAll(2, buf[:m])
	}
	return 0
}

// minCopy is the shortest tail of the descriptor 2 pipe taken for the
// report's copy: shorter matches ("\n" at the end of the reason) are as
// likely the reason's own end.
const minCopy = 8

// reportStart returns the smallest i such that rest[i:] starts as report
// does (the copy of the report's start that went to descriptor 2), over at
// least minCopy bytes (or the whole report) and over all of rest[i:] or its
// first sameSpan bytes, or len(rest). Only the start has to agree: when
// the descriptor 2 pipe was full, the runtime's write to it was cut short
// and a piece of its copy is missing further on (the whole copy used to be
// written twice then, under load).
func reportStart(rest, report []byte) int {
	if len(report) == 0 {
		return len(rest)
	}
	least := min(minCopy, len(report))
	for i := 0; i <= len(rest)-least; {
		j := bytes.IndexByte(rest[i:], report[0])
		if j < 0 || len(rest)-(i+j) < least {
			break
		}
		i += j
		need := min(len(rest)-i, len(report), sameSpan)
		if need >= least && bytes.Equal(rest[i:i+need], report[:need]) {
			return i
		}
		i++
	}
	return len(rest)
}

// sameSpan is how much of the report's start the copy must repeat.
const sameSpan = 256

// readSome reads into buf, retrying on EINTR; 0 means end of file or an
// error.
func readSome(fd int, buf []byte) int {
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if n < 0 || err != nil {
			return 0
		}
		return n
	}
}

// drain reads what fd (non-blocking) holds now, at most maxRemainder bytes.
func drain(fd int) []byte {
	var out []byte
	buf := make([]byte, 64<<10)
	for len(out) < maxRemainder {
		n := readSome(fd, buf)
		if n == 0 {
			break
		}
		out = append(out, buf[:n]...)
	}
	return out
}

func writeAll(fd int, p []byte) {
	for len(p) > 0 {
		n, err := syscall.Write(fd, p)
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		p = p[n:]
	}
}

// closeOthers closes every descriptor above StderrFD (close_range(2)):
// nothing the kernel opened without close-on-exec stays open here.
func closeOthers() {
	syscall.Syscall(436 /* SYS_CLOSE_RANGE */, StderrFD+1, ^uintptr(0)>>32, 0)
}
