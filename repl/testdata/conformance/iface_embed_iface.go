package main

import "fmt"

type Reader interface{ Read() string }
type Writer interface{ Write(s string) }
type RW interface {
	Reader
	Writer
}

type Buf struct{ data []string }

func (b *Buf) Read() string {
	if len(b.data) == 0 {
		return ""
	}
	s := b.data[0]
	b.data = b.data[1:]
	return s
}

func (b *Buf) Write(s string) { b.data = append(b.data, s) }

func main() {
	var rw RW = &Buf{}
	rw.Write("one")
	rw.Write("two")
	fmt.Println(rw.Read(), rw.Read(), rw.Read() == "")
}
