package checkpoint

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the safetensors decoder: it returns
// tensors or an ErrFormat error, never panics and never allocates beyond
// what the input can hold.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"io", "sage", "gcn"} {
		b, err := os.ReadFile(filepath.Join("testdata", name+".safetensors"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, _, err := decode("fuzz", data)
		if err != nil && ts != nil {
			t.Fatal("tensors returned with an error")
		}
	})
}
