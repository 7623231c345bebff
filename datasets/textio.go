package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/gnnrepl/gnnrepl/runctx"
)

// dataFile is an open data file, transparently gunzipped when it starts
// with the gzip magic bytes, read line by line with the line number kept
// for error messages.
type dataFile struct {
	path string
	f    *os.File
	gz   *gzip.Reader
	pre  *prefetcher
	r    *bufio.Reader
	line int // number of the line last returned by next
	// noEOL is set when the line last returned by next had no line
	// ending (the file's last line, cut or written without one).
	noEOL bool
}

// openData opens path for reading; a missing file is an error wrapping
// ErrMissing and fs.ErrNotExist that names the path.
func openData(path string) (*dataFile, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s: %w", ErrMissing, path, err)
		}
		return nil, fmt.Errorf("datasets: opening %s: %w", path, err)
	}
	d := &dataFile{path: path, f: f, r: bufio.NewReaderSize(f, 1<<20)}
	if magic, _ := d.r.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		d.gz, err = gzip.NewReader(d.r)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%w: %s: bad gzip header: %v", ErrFormat, path, err)
		}
		// Decompress on another goroutine while this one parses.
		d.pre = newPrefetcher(d.gz)
		d.r = bufio.NewReaderSize(d.pre, 1<<20)
	}
	return d, nil
}

func (d *dataFile) Close() error {
	if d.pre != nil {
		d.pre.Close()
	}
	if d.gz != nil {
		d.gz.Close()
	}
	return d.f.Close()
}

// prefetcher reads its source on a goroutine into a few 1 MiB chunks ahead
// of the consumer, so that gzip decompression and parsing overlap.
type prefetcher struct {
	full chan []byte // chunks read, in order
	free chan []byte // emptied chunks, full capacity, for reuse
	done chan struct{}
	buf  []byte // the chunk being consumed
	off  int
	err  error // set by the goroutine before it closes full
}

func newPrefetcher(src io.Reader) *prefetcher {
	const chunks, size = 4, 1 << 20
	p := &prefetcher{full: make(chan []byte, chunks), free: make(chan []byte, chunks), done: make(chan struct{})}
	for i := 0; i < chunks; i++ {
		p.free <- make([]byte, size)
	}
	go func() {
		defer close(p.full)
		for {
			var buf []byte
			select {
			case buf = <-p.free:
			case <-p.done:
				return
			}
			n, err := 0, error(nil)
			for n < len(buf) && err == nil {
				var k int
				k, err = src.Read(buf[n:])
				n += k
			}
			if n > 0 {
				select {
				case p.full <- buf[:n]:
				case <-p.done:
					return
				}
			}
			if err != nil {
				if err != io.EOF {
					p.err = err
				}
				return
			}
		}
	}()
	return p
}

func (p *prefetcher) Read(b []byte) (int, error) {
	for p.off == len(p.buf) {
		if p.buf != nil {
			p.free <- p.buf[:cap(p.buf)]
			p.buf, p.off = nil, 0
		}
		chunk, ok := <-p.full
		if !ok {
			if p.err != nil {
				return 0, p.err
			}
			return 0, io.EOF
		}
		p.buf = chunk
	}
	n := copy(b, p.buf[p.off:])
	p.off += n
	return n, nil
}

// Close stops the goroutine; the prefetcher must not be read afterwards.
func (p *prefetcher) Close() {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	for range p.full { // wait for the goroutine to finish
	}
}

// next returns the next line without its line ending ("\n" or "\r\n"),
// io.EOF after the last line. The slice is valid until the next call.
func (d *dataFile) next() ([]byte, error) {
	line, err := d.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull { // a line longer than the buffer
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = d.r.ReadSlice('\n')
			buf = append(buf, line...)
		}
		line = buf
	}
	if err != nil && err != io.EOF {
		return nil, d.errorf("reading: %v", err)
	}
	if len(line) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	d.line++
	if d.line&(1<<16-1) == 0 {
		// A long load observes the session's interrupt (Ctrl-C) every
		// 65536 lines: the loader returns the error, no smaller graph.
		if err := runctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: interrupted at line %d: %w", d.path, d.line, err)
		}
	}
	d.noEOL = true
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		d.noEOL = false
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// atEOFWithoutNewline reports whether the line last returned by next
// ended the file without a line ending.
func (d *dataFile) atEOFWithoutNewline() bool { return d.noEOL }

// errorf returns an error wrapping ErrFormat that names the file and the
// current line.
func (d *dataFile) errorf(format string, args ...any) error {
	return lineError(d.path, d.line, format, args...)
}

func lineError(path string, line int, format string, args ...any) error {
	if line > 0 {
		return fmt.Errorf("%w: %s:%d: %s", ErrFormat, path, line, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%w: %s: %s", ErrFormat, path, fmt.Sprintf(format, args...))
}

// parseID parses a non-negative decimal integer.
func parseID(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// splitFields splits b at runs of spaces and tabs into dst (reused).
func splitFields(dst [][]byte, b []byte) [][]byte {
	dst = dst[:0]
	i := 0
	for i < len(b) {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		j := i
		for j < len(b) && b[j] != ' ' && b[j] != '\t' {
			j++
		}
		if j > i {
			dst = append(dst, b[i:j])
		}
		i = j
	}
	return dst
}

// splitComma splits b at commas into dst (reused), trimming spaces around
// each field.
func splitComma(dst [][]byte, b []byte) [][]byte {
	dst = dst[:0]
	for {
		i := bytes.IndexByte(b, ',')
		if i < 0 {
			return append(dst, bytes.TrimSpace(b))
		}
		dst = append(dst, bytes.TrimSpace(b[:i]))
		b = b[i+1:]
	}
}

// parseFloat32 parses a decimal float with float32 rounding.
func parseFloat32(b []byte) (float32, bool) {
	v, err := strconv.ParseFloat(string(b), 32)
	if err != nil {
		return 0, false
	}
	return float32(v), true
}

// edgePair parses a trimmed edge-list line t of two non-negative node ids
// separated by tabs or spaces (SNAP's format), reusing fields; errors name
// d's file and line.
func (d *dataFile) edgePair(fields [][]byte, t []byte) (u, v int64, _ [][]byte, err error) {
	fields = splitFields(fields, t)
	if len(fields) != 2 {
		return 0, 0, fields, d.errorf("want two node ids separated by a tab or spaces, got %d fields in %q", len(fields), clip(t))
	}
	u, ok1 := parseID(fields[0])
	v, ok2 := parseID(fields[1])
	if !ok1 || !ok2 {
		return 0, 0, fields, d.errorf("node ids must be non-negative integers, got %q", clip(t))
	}
	return u, v, fields, nil
}
