package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
)

// writeNPY writes data as a NumPy .npy file (format version 1.0,
// little-endian, C order) of the given shape. data is []float32 ('<f4') or
// []int64 ('<i8'). Errors name the file.
func writeNPY(path string, data any, shape ...int) error {
	var descr string
	var n int
	switch d := data.(type) {
	case []float32:
		descr, n = "<f4", len(d)
	case []int64:
		descr, n = "<i8", len(d)
	default:
		return fmt.Errorf("writeNPY %s: unsupported type %T", path, data)
	}
	want := 1
	dims := make([]string, len(shape))
	for i, s := range shape {
		want *= s
		dims[i] = fmt.Sprint(s)
	}
	if want != n {
		return fmt.Errorf("writeNPY %s: %d elements for shape %v", path, n, shape)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh)
	// magic (6) + version (2) + header length (2) + header + '\n' is a
	// multiple of 64.
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(header)))
	w.WriteString(header)
	var buf [8]byte
	switch d := data.(type) {
	case []float32:
		for _, v := range d {
			binary.LittleEndian.PutUint32(buf[:4], math.Float32bits(v))
			w.Write(buf[:4])
		}
	case []int64:
		for _, v := range d {
			binary.LittleEndian.PutUint64(buf[:], uint64(v))
			w.Write(buf[:])
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writeNPY %s: %w", path, err)
	}
	return f.Close()
}
